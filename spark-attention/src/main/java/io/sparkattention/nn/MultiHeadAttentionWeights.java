package io.sparkattention.nn;

import io.sparkattention.kernel.Heads;
import java.io.Serializable;
import java.util.Objects;

/**
 * The parameters of a multi-head attention layer, as PyTorch's {@code nn.MultiheadAttention}
 * holds them: every projection is {@code y = x·Wᵀ + b} with {@code W} stored {@code out×in},
 * row-major, in plain float arrays.
 *
 * <p>Shapes, with {@code E = embedDim}, {@code hd = E / numHeads} and {@code Ekv = numKvHeads·hd}:
 * <pre>
 *   qWeight   E×E        qBias   E     (or null)
 *   kWeight   Ekv×kdim   kBias   Ekv   (or null)
 *   vWeight   Ekv×vdim   vBias   Ekv   (or null)
 *   outWeight E×E        outBias E     (or null)
 * </pre>
 * PyTorch's {@code in_proj_weight} is {@code [qWeight; kWeight; vWeight]} stacked on rows.
 * {@code numKvHeads < numHeads} gives grouped-query attention (PyTorch's module always has
 * {@code numKvHeads == numHeads}).
 */
public final class MultiHeadAttentionWeights implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int embedDim;
    private final int numHeads;
    private final int numKvHeads;
    private final int kdim;
    private final int vdim;
    private final float[] qWeight;
    private final float[] kWeight;
    private final float[] vWeight;
    private final float[] qBias;
    private final float[] kBias;
    private final float[] vBias;
    private final float[] outWeight;
    private final float[] outBias;

    /**
     * Checks every shape; the arrays are kept, not copied.
     *
     * @throws IllegalArgumentException naming the first tensor whose size is wrong
     */
    public MultiHeadAttentionWeights(int embedDim, int numHeads, int numKvHeads, int kdim, int vdim,
                                     float[] qWeight, float[] kWeight, float[] vWeight,
                                     float[] qBias, float[] kBias, float[] vBias,
                                     float[] outWeight, float[] outBias) {
        Heads.headDim(embedDim, numHeads, "numHeads", "embedDim");
        Heads.checkGroups(numHeads, numKvHeads);
        if (kdim < 1 || vdim < 1) {
            throw new IllegalArgumentException("kdim and vdim must be >= 1, got " + kdim + ", " + vdim);
        }
        int kvDim = numKvHeads * (embedDim / numHeads);
        check("q weight", qWeight, embedDim, embedDim);
        check("k weight", kWeight, kvDim, kdim);
        check("v weight", vWeight, kvDim, vdim);
        check("out weight", outWeight, embedDim, embedDim);
        checkBias("q bias", qBias, embedDim);
        checkBias("k bias", kBias, kvDim);
        checkBias("v bias", vBias, kvDim);
        checkBias("out bias", outBias, embedDim);
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.numKvHeads = numKvHeads;
        this.kdim = kdim;
        this.vdim = vdim;
        this.qWeight = qWeight;
        this.kWeight = kWeight;
        this.vWeight = vWeight;
        this.qBias = qBias;
        this.kBias = kBias;
        this.vBias = vBias;
        this.outWeight = outWeight;
        this.outBias = outBias;
    }

    /** PyTorch {@code nn.MultiheadAttention}'s layout: {@code numKvHeads == numHeads}. */
    public static MultiHeadAttentionWeights of(int embedDim, int numHeads, int kdim, int vdim,
                                               float[] qWeight, float[] kWeight, float[] vWeight,
                                               float[] qBias, float[] kBias, float[] vBias,
                                               float[] outWeight, float[] outBias) {
        return new MultiHeadAttentionWeights(embedDim, numHeads, numHeads, kdim, vdim, qWeight, kWeight, vWeight,
            qBias, kBias, vBias, outWeight, outBias);
    }

    private static void check(String name, float[] w, int rows, int cols) {
        Objects.requireNonNull(w, name);
        if (w.length != rows * cols) {
            throw new IllegalArgumentException(name + " has " + w.length + " values, expected " + rows + "×" + cols);
        }
    }

    private static void checkBias(String name, float[] b, int n) {
        if (b != null && b.length != n) {
            throw new IllegalArgumentException(name + " has " + b.length + " values, expected " + n);
        }
    }

    public int embedDim() {
        return embedDim;
    }

    public int numHeads() {
        return numHeads;
    }

    public int numKvHeads() {
        return numKvHeads;
    }

    /** Per-head dimension {@code E / numHeads}. */
    public int headDim() {
        return embedDim / numHeads;
    }

    public int kdim() {
        return kdim;
    }

    public int vdim() {
        return vdim;
    }

    public float[] qWeight() {
        return qWeight;
    }

    public float[] kWeight() {
        return kWeight;
    }

    public float[] vWeight() {
        return vWeight;
    }

    public float[] qBias() {
        return qBias;
    }

    public float[] kBias() {
        return kBias;
    }

    public float[] vBias() {
        return vBias;
    }

    public float[] outWeight() {
        return outWeight;
    }

    public float[] outBias() {
        return outBias;
    }

    /** True when the projections carry biases (PyTorch's {@code bias=True}). */
    public boolean hasBias() {
        return qBias != null;
    }

    /** Number of parameters. */
    public long parameterCount() {
        long n = (long) qWeight.length + kWeight.length + vWeight.length + outWeight.length;
        for (float[] b : new float[][] {qBias, kBias, vBias, outBias}) {
            n += b == null ? 0 : b.length;
        }
        return n;
    }
}
