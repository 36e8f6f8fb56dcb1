package io.sparkattention.nn;

import java.util.Locale;
import java.util.Objects;

/**
 * One sentence embedding from an encoder's last hidden state (L×E): the mean over all L tokens
 * ([CLS] and [SEP] included, as sentence-transformers does), the [CLS] row, or the column-wise
 * max; optionally L2-normalised (a zero vector stays zero).
 */
public final class SentencePooling {

    /** How the L rows become one. */
    public enum Mode {
        /** The mean of all rows. */
        MEAN,
        /** The first row ([CLS]). */
        CLS,
        /** The largest value of each column. */
        MAX;

        /**
         * The mode named {@code mean}, {@code cls} or {@code max} (any case).
         *
         * @throws IllegalArgumentException naming the accepted values
         */
        public static Mode parse(String name) {
            if (name != null) {
                switch (name.trim().toLowerCase(Locale.ROOT)) {
                    case "mean":
                        return MEAN;
                    case "cls":
                        return CLS;
                    case "max":
                        return MAX;
                    default:
                        break;
                }
            }
            throw new IllegalArgumentException("pooling must be mean, cls or max, got " + name);
        }

        /** The lower-case name {@link #parse} accepts. */
        public String paramValue() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private SentencePooling() {
    }

    /**
     * Pools {@code states} (length×hidden row-major) into one hidden-wide vector; the mean is
     * accumulated in double. An empty sequence (length 0) pools to zeros.
     *
     * @throws IllegalArgumentException when states is not length·hidden long or a size is negative
     */
    public static float[] pool(float[] states, int length, int hidden, Mode mode, boolean normalize) {
        Objects.requireNonNull(states, "states");
        Objects.requireNonNull(mode, "mode");
        if (length < 0 || hidden < 1 || (long) length * hidden != states.length) {
            throw new IllegalArgumentException("states has " + states.length + " values, expected " + length + "×"
                + hidden);
        }
        float[] out = new float[hidden];
        if (length > 0) {
            switch (mode) {
                case MEAN: {
                    double[] sum = new double[hidden];
                    for (int i = 0; i < length; i++) {
                        for (int j = 0; j < hidden; j++) {
                            sum[j] += states[i * hidden + j];
                        }
                    }
                    for (int j = 0; j < hidden; j++) {
                        out[j] = (float) (sum[j] / length);
                    }
                    break;
                }
                case CLS:
                    System.arraycopy(states, 0, out, 0, hidden);
                    break;
                case MAX:
                    System.arraycopy(states, 0, out, 0, hidden);
                    for (int i = 1; i < length; i++) {
                        for (int j = 0; j < hidden; j++) {
                            out[j] = Math.max(out[j], states[i * hidden + j]);
                        }
                    }
                    break;
                default:
                    throw new AssertionError(mode);
            }
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
