package io.sparkattention.nn;

import io.sparkattention.kernel.Heads;
import java.io.Serializable;

/**
 * Rotary positional encoding (RoPE; Su et al., 2021) in the half-split layout of GPT-NeoX and
 * Llama's Hugging Face implementation ({@code rotate_half}). For each head's slice {@code x} of
 * width {@code hd} at position {@code m}, with {@code x1 = x[:hd/2]}, {@code x2 = x[hd/2:]} and
 * {@code θ_i = base^(−2i/hd)}:
 * <pre>
 *   out[i]        = x1[i]·cos(m·θ_i) − x2[i]·sin(m·θ_i)
 *   out[i + hd/2] = x2[i]·cos(m·θ_i) + x1[i]·sin(m·θ_i)        for i in [0, hd/2)
 * </pre>
 * Heads are PyTorch's column blocks ({@code [h·hd, (h+1)·hd)}). The rotation makes
 * {@code q_m·k_n} depend on positions only through {@code m − n}. Angles are computed in
 * float64 and each output rounded once to float32.
 */
public final class RotaryEncoding implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The base of Llama and GPT-NeoX. */
    public static final double DEFAULT_BASE = 10000.0;

    private final double base;

    /**
     * @param base the frequency base, greater than 1
     * @throws IllegalArgumentException when {@code base} is not greater than 1
     */
    public RotaryEncoding(double base) {
        if (!(base > 1) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("base must be a finite number > 1, got " + base);
        }
        this.base = base;
    }

    /**
     * The frequency base.
     *
     * @return the base, greater than 1
     */
    public double base() {
        return base;
    }

    /**
     * The head dimension of a row of {@code width} values split into {@code numHeads} heads.
     *
     * @param width    values per row
     * @param numHeads heads per row
     * @return {@code width / numHeads}
     * @throws IllegalArgumentException when the heads do not divide the width, or the head
     *     dimension is odd (it has no halves to rotate)
     */
    public static int headDim(int width, int numHeads) {
        int headDim = Heads.headDim(width, numHeads, "numHeads", "the width");
        if (headDim % 2 != 0) {
            throw new IllegalArgumentException("head_dim " + headDim + " (" + width + "/" + numHeads
                + ") is odd; rotary encoding rotates pairs of values and needs an even head_dim");
        }
        return headDim;
    }

    /**
     * Rotates every head of every row.
     *
     * @param x        L×width row-major (not modified)
     * @param rows     L
     * @param width    values per row, {@code numHeads·hd}
     * @param numHeads heads per row
     * @param offset   position of row 0
     * @return a new L×width array
     * @throws IllegalArgumentException as {@link #headDim} does, or when {@code x} is not L×width
     */
    public float[] rotate(float[] x, int rows, int width, int numHeads, long offset) {
        if (x.length != (long) rows * width) {
            throw new IllegalArgumentException("input has " + x.length + " values, expected " + rows + "×" + width);
        }
        float[] out = new float[x.length];
        if (x.length == 0) {
            return out;
        }
        int half = headDim(width, numHeads) / 2;
        double[] theta = new double[half];
        for (int i = 0; i < half; i++) {
            theta[i] = Math.pow(base, -2.0 * i / (2 * half));
        }
        double[] cos = new double[half];
        double[] sin = new double[half];
        for (int r = 0; r < rows; r++) {
            double position = offset + r;
            for (int i = 0; i < half; i++) {
                double angle = position * theta[i];
                cos[i] = Math.cos(angle);
                sin[i] = Math.sin(angle);
            }
            for (int h = 0; h < numHeads; h++) {
                int at = r * width + h * 2 * half;
                for (int i = 0; i < half; i++) {
                    double x1 = x[at + i];
                    double x2 = x[at + half + i];
                    out[at + i] = (float) (x1 * cos[i] - x2 * sin[i]);
                    out[at + half + i] = (float) (x2 * cos[i] + x1 * sin[i]);
                }
            }
        }
        return out;
    }
}
