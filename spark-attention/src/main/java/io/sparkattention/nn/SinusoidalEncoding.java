package io.sparkattention.nn;

import java.io.Serializable;

/**
 * The sinusoidal positional encoding of "Attention Is All You Need" (Vaswani et al., 2017, §3.5):
 * <pre>
 *   PE[pos, 2i]     = sin(pos / base^(2i/d))
 *   PE[pos, 2i + 1] = cos(pos / base^(2i/d))
 * </pre>
 * with {@code d} the width of a row and {@code base} 10000 in the paper. An odd width ends with
 * a sine column. Angles and sums are computed in float64 and rounded once to float32, so the
 * encoding at large positions is as exact as float32 allows.
 */
public final class SinusoidalEncoding implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The paper's base. */
    public static final double DEFAULT_BASE = 10000.0;

    private final double base;

    /**
     * @param base the wavelength base, greater than 1
     * @throws IllegalArgumentException when {@code base} is not greater than 1
     */
    public SinusoidalEncoding(double base) {
        if (!(base > 1) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("base must be a finite number > 1, got " + base);
        }
        this.base = base;
    }

    /**
     * The wavelength base.
     *
     * @return the base, greater than 1
     */
    public double base() {
        return base;
    }

    /**
     * The encoding of {@code rows} consecutive positions starting at {@code offset}.
     *
     * @param rows   L, the number of positions
     * @param width  d, values per position
     * @param offset position of row 0
     * @return L×d row-major
     */
    public float[] encoding(int rows, int width, long offset) {
        return apply(null, rows, width, offset);
    }

    /**
     * {@code x + PE}: the input with its rows' positional encodings added.
     *
     * @param x      L×d row-major (not modified)
     * @param rows   L
     * @param width  d
     * @param offset position of row 0
     * @return a new L×d array
     */
    public float[] addTo(float[] x, int rows, int width, long offset) {
        if (x.length != (long) rows * width) {
            throw new IllegalArgumentException("input has " + x.length + " values, expected " + rows + "×" + width);
        }
        return apply(x, rows, width, offset);
    }

    private float[] apply(float[] x, int rows, int width, long offset) {
        double[] frequency = frequencies(width);
        float[] out = new float[rows * width];
        for (int r = 0; r < rows; r++) {
            double position = offset + r;
            int row = r * width;
            for (int c = 0; c < width; c++) {
                double angle = position * frequency[c];
                double pe = (c & 1) == 0 ? Math.sin(angle) : Math.cos(angle);
                out[row + c] = (float) (x == null ? pe : x[row + c] + pe);
            }
        }
        return out;
    }

    /** {@code 1 / base^(2i/d)} for column {@code c = 2i} and {@code c = 2i + 1}. */
    private double[] frequencies(int width) {
        double[] f = new double[width];
        for (int c = 0; c < width; c++) {
            f[c] = Math.pow(base, -(double) (c & ~1) / width);
        }
        return f;
    }
}
