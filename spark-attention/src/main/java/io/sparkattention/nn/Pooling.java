package io.sparkattention.nn;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * How a sequence's L×E hidden states become one E-vector: for the attention classifier's head,
 * the fine-tuned BERT classifier's head and the encoder stage's sentence embeddings alike. A
 * sequence here is its valid tokens only (nothing is padded), so the mean is over all L rows
 * ([CLS] and [SEP] included, as sentence-transformers does).
 */
public enum Pooling {
    /** The mean of the rows. */
    MEAN,
    /** The first row ([CLS] for a BERT encoder; also parsed from {@code cls}). */
    FIRST,
    /** The last row. */
    LAST,
    /** The largest value of each column. */
    MAX;

    /**
     * The pooling named {@code mean}, {@code first} (or {@code cls}), {@code last} or {@code max}
     * (any case, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Pooling parse(String name) {
        if (name != null) {
            switch (name.trim().toLowerCase(Locale.ROOT)) {
                case "mean":
                    return MEAN;
                case "first":
                case "cls":
                    return FIRST;
                case "last":
                    return LAST;
                case "max":
                    return MAX;
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("pooling must be mean, first (cls), last or max, got " + name);
    }

    /** The lower-case name {@link #parse} accepts ({@code first} for {@link #FIRST}). */
    public String paramValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code pooled = pool(h)}; the mean is accumulated in float64.
     *
     * @param h      length×width row-major, length ≥ 1 (rows past {@code length} are not read)
     * @param pooled width values, written
     */
    public void pool(float[] h, int length, int width, float[] pooled) {
        switch (this) {
            case MEAN:
                double[] sum = new double[width];
                for (int r = 0; r < length; r++) {
                    for (int c = 0; c < width; c++) {
                        sum[c] += h[r * width + c];
                    }
                }
                for (int c = 0; c < width; c++) {
                    pooled[c] = (float) (sum[c] / length);
                }
                break;
            case FIRST:
                System.arraycopy(h, 0, pooled, 0, width);
                break;
            case LAST:
                System.arraycopy(h, (length - 1) * width, pooled, 0, width);
                break;
            default:
                System.arraycopy(h, 0, pooled, 0, width);
                for (int r = 1; r < length; r++) {
                    for (int c = 0; c < width; c++) {
                        pooled[c] = Math.max(pooled[c], h[r * width + c]);
                    }
                }
                break;
        }
    }

    /**
     * {@code dh = ∂pooled/∂h ᵀ · dPooled}: the mean spreads {@code dPooled/length} over every row,
     * first and last put {@code dPooled} on their row and 0 elsewhere.
     *
     * @param dPooled width values
     * @param dh      length×width, written (rows past {@code length} are not touched)
     * @throws UnsupportedOperationException for {@link #MAX} (not a training pooling)
     */
    public void backward(float[] dPooled, int length, int width, float[] dh) {
        if (this == MAX) {
            throw new UnsupportedOperationException("max pooling has no backward pass here");
        }
        if (this == MEAN) {
            float inv = (float) (1.0 / length);
            for (int r = 0; r < length; r++) {
                for (int c = 0; c < width; c++) {
                    dh[r * width + c] = dPooled[c] * inv;
                }
            }
            return;
        }
        Arrays.fill(dh, 0, length * width, 0f);
        System.arraycopy(dPooled, 0, dh, (this == FIRST ? 0 : length - 1) * width, width);
    }

    /**
     * One sentence embedding from an encoder's last hidden state: {@link #pool}, then optionally
     * L2-normalised ({@link #normalize}). An empty sequence (length 0) pools to zeros.
     *
     * @param states length×hidden row-major
     * @throws IllegalArgumentException when states is not length·hidden long or a size is negative
     */
    public float[] embed(float[] states, int length, int hidden, boolean normalize) {
        Objects.requireNonNull(states, "states");
        if (length < 0 || hidden < 1 || (long) length * hidden != states.length) {
            throw new IllegalArgumentException("states has " + states.length + " values, expected " + length + "×"
                + hidden);
        }
        float[] out = new float[hidden];
        if (length > 0) {
            pool(states, length, hidden, out);
        }
        if (normalize) {
            normalize(out);
        }
        return out;
    }

    /** Divides v by its L2 norm (accumulated in double); a zero vector stays zero. */
    public static void normalize(float[] v) {
        double sq = 0;
        for (float f : v) {
            sq += (double) f * f;
        }
        if (sq > 0) {
            double inv = 1.0 / Math.sqrt(sq);
            for (int j = 0; j < v.length; j++) {
                v[j] = (float) (v[j] * inv);
            }
        }
    }
}
