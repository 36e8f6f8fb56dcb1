package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.Objects;

/**
 * A projection's weight and bias prepared once for a {@link LinearKernel}: {@code y = x·Wᵀ + b}
 * with PyTorch's {@code out×in} weight. The weights of a layer are fixed, so a layer prepares
 * each of them once and applies it to every sequence; the Vector API kernel packs the weight
 * into its panels here, the BLAS one keeps it as it is.
 *
 * <p>Immutable and thread-safe. The packed layout belongs to the kernel of this JVM, so it is
 * not serializable: a serialized layer keeps its plain weights and prepares them where it runs.
 */
public final class LinearWeight {

    private final LinearKernel kernel;
    private final int out;
    private final int in;
    private final float[] packed;
    private final float[] bias;

    private LinearWeight(LinearKernel kernel, int out, int in, float[] packed, float[] bias) {
        this.kernel = kernel;
        this.out = out;
        this.in = in;
        this.packed = packed;
        this.bias = bias;
    }

    /**
     * Prepares {@code weight} (out×in, row-major) and {@code bias} (out values, or null) for the
     * JVM's projection kernel ({@link LinearKernel#get()}). Neither array is modified; the BLAS
     * kernel keeps a reference to the weight, so do not change it afterwards.
     *
     * @throws IllegalArgumentException naming the weight or bias whose size is wrong, or a weight
     *                                  too large for the kernel's packed layout
     */
    public static LinearWeight of(float[] weight, int out, int in, float[] bias) {
        return of(LinearKernel.get(), weight, out, in, bias);
    }

    /** {@link #of(float[], int, int, float[])} for a given kernel (side-by-side tests and benchmarks). */
    public static LinearWeight of(LinearKernel kernel, float[] weight, int out, int in, float[] bias) {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(weight, "weight");
        checkShape(weight, out, in);
        if (bias != null && bias.length != out) {
            throw new IllegalArgumentException("bias has " + bias.length + " values, expected " + out);
        }
        float[] packed = out == 0 || in == 0 ? weight : kernel.pack(weight, out, in);
        return new LinearWeight(kernel, out, in, packed, bias);
    }

    /**
     * Prepares the transpose of {@code weight} (out×in, row-major) for {@code kernel}: applying it
     * computes {@code y[m×in] = x[m×out]·W}, the input gradient of {@code y = x·Wᵀ}. No bias. The
     * weight is not modified nor kept.
     *
     * @throws IllegalArgumentException when the weight's size is not out×in, or it is too large
     *                                  for the kernel's packed layout
     */
    public static LinearWeight transposeOf(LinearKernel kernel, float[] weight, int out, int in) {
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(weight, "weight");
        checkShape(weight, out, in);
        float[] packed = out == 0 || in == 0 ? weight : kernel.packTransposed(weight, out, in);
        return new LinearWeight(kernel, in, out, packed, null);
    }

    private static void checkShape(float[] weight, int out, int in) {
        if (out < 0 || in < 0) {
            throw new IllegalArgumentException("weight: negative shape " + out + "×" + in);
        }
        if ((long) out * in != weight.length) {
            throw new IllegalArgumentException("weight has " + weight.length + " values, expected " + out + "×" + in);
        }
    }

    /** Output features (rows of the weight). */
    public int out() {
        return out;
    }

    /** Input features (columns of the weight). */
    public int in() {
        return in;
    }

    /**
     * True when a row of {@link #apply}'s output depends on that row of x alone, bit for bit,
     * whatever m is and wherever the row sits: stacking sequences into one call is then
     * invisible in the results.
     */
    public boolean rowsIndependent() {
        return kernel.rowsIndependent();
    }

    /** The kernel this weight was prepared for. */
    public LinearKernel kernel() {
        return kernel;
    }

    /**
     * {@code y[m×out] = x[m×in]·Wᵀ + b}, x row-major (its first {@code m·in} values are read).
     *
     * @throws IllegalArgumentException when m is negative, x holds fewer than {@code m·in} values or
     *                                  the output would not fit in one array
     */
    public float[] apply(float[] x, int m) {
        Gemm.checkView("x", x, 0, m, in, in);
        if ((long) m * out > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("output " + m + "×" + out + " does not fit in one array");
        }
        float[] y = new float[m * out];
        project(x, m, y);
        return y;
    }

    /**
     * {@link #apply(float[], int)} into {@code y}, whose first {@code m·out} values are overwritten
     * (a caller reuses one buffer from sequence to sequence).
     *
     * @throws IllegalArgumentException when m is negative, x holds fewer than {@code m·in} values
     *                                  or y fewer than {@code m·out}
     */
    public void apply(float[] x, int m, float[] y) {
        Gemm.checkView("x", x, 0, m, in, in);
        Gemm.checkView("y", y, 0, m, out, out);
        project(x, m, y);
    }

    private void project(float[] x, int m, float[] y) {
        if (bias != null) {
            for (int i = 0; i < m; i++) {
                System.arraycopy(bias, 0, y, i * out, out);
            }
        } else {
            Arrays.fill(y, 0, m * out, 0f);
        }
        if (m > 0 && out > 0 && in > 0) {
            kernel.multiplyAdd(m, out, in, x, packed, y, 0);
        }
    }
}
