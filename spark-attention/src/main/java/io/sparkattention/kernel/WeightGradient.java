package io.sparkattention.kernel;

import java.util.Objects;

/**
 * The weight gradient of a projection {@code y = x·Wᵀ}, summed over rows:
 * {@code dW[out×in] += dy[m×out]ᵀ·x[m×in]}, on a {@link LinearKernel} (by default the JVM's
 * projection kernel, {@link GemmChoice}), so that the backward pass runs on the arithmetic the
 * forward projections run on.
 *
 * <p>Holds the scratch the kernel reuses from call to call (the Vector API kernel's packed blocks
 * of dy and x), grown to the largest call seen. Not thread-safe: one per thread.
 */
public final class WeightGradient {

    private final LinearKernel kernel;
    private float[] packed = new float[0];

    /** On the JVM's projection kernel ({@link LinearKernel#get()}). */
    public WeightGradient() {
        this(LinearKernel.get());
    }

    /** On a given kernel (side-by-side tests and benchmarks). */
    public WeightGradient(LinearKernel kernel) {
        this.kernel = Objects.requireNonNull(kernel, "kernel");
    }

    /** The kernel the products run on. */
    public LinearKernel kernel() {
        return kernel;
    }

    /**
     * {@code dW += dyᵀ·x}: dy m×out and x m×in row-major from offset 0 (their first rows read), dW
     * the out×in row-major block of {@code dw} at {@code dwOff}, added to.
     *
     * @throws IllegalArgumentException when a shape is negative or a view does not fit its array
     */
    public void accumulate(int m, int in, int out, float[] dy, float[] x, float[] dw, int dwOff) {
        accumulate(m, in, out, dy, 0, out, x, dw, dwOff);
    }

    /**
     * {@code dW += dyᵀ·x} with dy a strided view: row i of dy is {@code dy[dyOff + i·ldDy, + out)},
     * so a column block of a wider gradient (one of q, k, v in a fused [q | k | v] gradient) is
     * read in place, with the bits of the same block copied out first. x m×in row-major from
     * offset 0, dW the out×in row-major block of {@code dw} at {@code dwOff}, added to.
     *
     * @throws IllegalArgumentException when a shape is negative, ldDy &lt; out or a view does not
     *                                  fit its array
     */
    public void accumulate(int m, int in, int out, float[] dy, int dyOff, int ldDy, float[] x, float[] dw,
                           int dwOff) {
        Gemm.checkView("dy", dy, dyOff, m, out, ldDy);
        Gemm.checkView("x", x, 0, m, in, in);
        Gemm.checkView("dW", dw, dwOff, out, in, in);
        if (m > 0 && in > 0 && out > 0) {
            kernel.addWeightGradient(m, in, out, dy, dyOff, ldDy, x, dw, dwOff, this);
        }
    }

    /** A scratch buffer of at least {@code size} floats for a packed operand. */
    float[] packed(int size) {
        if (packed.length < size) {
            packed = new float[size];
        }
        return packed;
    }
}
