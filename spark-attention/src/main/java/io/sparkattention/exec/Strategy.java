package io.sparkattention.exec;

import java.util.Locale;

/** How attention work is laid out on Spark. */
public enum Strategy {
    /** Chosen from the data and the cluster (logged). */
    AUTO,
    /** Whole rows, all heads, in one task: no shuffle; the strategy that runs on streams. */
    BATCH;

    /** Parses a param value ({@code auto}, {@code batch}...), case-insensitively. */
    public static Strategy parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("strategy must be one of auto, batch; got " + value, e);
        }
    }
}
