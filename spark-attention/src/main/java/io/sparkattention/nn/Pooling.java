package io.sparkattention.nn;

import java.util.Arrays;
import java.util.Locale;

/**
 * How a sequence's L×E hidden states become one E-vector for the classifier head, over the
 * row's valid tokens only (padding is never part of a row here).
 */
public enum Pooling {
    /** The mean of the valid tokens' rows. */
    MEAN,
    /** The first token's row. */
    FIRST,
    /** The last valid token's row. */
    LAST;

    /**
     * The pooling named {@code mean}, {@code first} or {@code last} (any case).
     *
     * @throws IllegalArgumentException naming the parameter and the accepted values
     */
    public static Pooling parse(String name) {
        if (name != null) {
            switch (name.trim().toLowerCase(Locale.ROOT)) {
                case "mean":
                    return MEAN;
                case "first":
                    return FIRST;
                case "last":
                    return LAST;
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("pooling must be mean, first or last, got " + name);
    }

    /** The lower-case name {@link #parse} accepts. */
    public String paramValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code pooled = pool(h)}.
     *
     * @param h      length×width row-major (longer arrays: the rows past {@code length} are not read)
     * @param pooled width values, written
     */
    void pool(float[] h, int length, int width, float[] pooled) {
        switch (this) {
            case MEAN:
                for (int c = 0; c < width; c++) {
                    double sum = 0;
                    for (int r = 0; r < length; r++) {
                        sum += h[r * width + c];
                    }
                    pooled[c] = (float) (sum / length);
                }
                break;
            case FIRST:
                System.arraycopy(h, 0, pooled, 0, width);
                break;
            default:
                System.arraycopy(h, (length - 1) * width, pooled, 0, width);
                break;
        }
    }

    /**
     * {@code dh = ∂pooled/∂h ᵀ · dPooled}: the mean spreads {@code dPooled/length} over every row,
     * first and last put {@code dPooled} on their row and 0 elsewhere.
     *
     * @param dPooled width values
     * @param dh      length×width, written (rows past {@code length} are not touched)
     */
    void backward(float[] dPooled, int length, int width, float[] dh) {
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
}
