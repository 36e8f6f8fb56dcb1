package io.sparkattention.nn;

import io.sparkattention.kernel.MatrixView;

/**
 * One sequence's keys and values at one attention layer, kept as the sequence grows token by
 * token (decoding with a KV cache): row t is {@code [k_t | v_t]}, {@code 2·Ekv} floats, for the
 * {@link #length()} tokens seen so far, in a buffer of {@link #capacity()} rows allocated once, so
 * its memory is proportional to the sequence's final length and nothing is allocated per token.
 * Filled by {@link MultiHeadAttentionLayer#cachedForward}. Not thread-safe: one sequence, one
 * thread.
 */
public final class KeyValueCache {

    /** capacity × 2·Ekv: row t holds token t's key then its value, Ekv floats each (head h at columns h·d). */
    final float[] rows;
    /** Ekv: the width of one key (and one value). */
    final int width;
    final int capacity;
    /** The keys as the kernel reads them in place: columns [0, Ekv) of {@link #rows}. */
    final MatrixView keys;
    /** The values: columns [Ekv, 2·Ekv) of {@link #rows}. */
    final MatrixView values;
    int length;

    /**
     * @param capacity the most tokens the sequence will reach
     * @param kvWidth  Ekv, the keys' (and values') width: key/value heads × head dimension
     * @throws IllegalArgumentException when a size is negative or the buffer would not fit in one array
     */
    public KeyValueCache(int capacity, int kvWidth) {
        if (capacity < 0 || kvWidth < 1) {
            throw new IllegalArgumentException("a KV cache needs capacity >= 0 and kvWidth >= 1, got " + capacity
                + " and " + kvWidth);
        }
        if (2L * kvWidth * capacity > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a KV cache of " + capacity + " tokens × 2×" + kvWidth
                + " floats does not fit in one array");
        }
        this.rows = new float[2 * kvWidth * capacity];
        this.width = kvWidth;
        this.capacity = capacity;
        this.keys = new MatrixView(rows, 0, 2 * kvWidth);
        this.values = new MatrixView(rows, kvWidth, 2 * kvWidth);
    }

    /** Tokens cached so far. */
    public int length() {
        return length;
    }

    /** The most tokens the cache holds. */
    public int capacity() {
        return capacity;
    }

    /** Forgets every token (the buffer is kept for the next sequence). */
    public void clear() {
        length = 0;
    }
}
