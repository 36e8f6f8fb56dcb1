package io.sparkattention.rows;

/**
 * Arrays one task reuses from row to row: the decoded inputs and the kernel's output. A request
 * returns the slot's previous array when it has exactly the requested length (the layers and
 * the kernel check exact lengths), else a new one that replaces it; so a task over rows of one
 * shape allocates nothing per row for these. The contents are stale: callers overwrite every
 * element.
 *
 * <p>Whatever reads a slot's array must be done with it before the next row asks for the slot:
 * the batch strategy decodes, attends and encodes a row (which copies the output into Spark's
 * format) inside one call. Calls from one thread only; {@link #none()} is the stateless instance
 * for callers that keep what they decode.
 */
public final class RowBuffers {

    /** The arrays of one row. */
    public enum Slot { QUERY, KEY, VALUE, MASK, BIAS, OUTPUT }

    private static final RowBuffers NONE = new RowBuffers(false);

    private final boolean reuse;
    private final float[][] floats = new float[Slot.values().length][];
    private final boolean[][] booleans = new boolean[Slot.values().length][];

    /** Buffers that reuse each slot's array. */
    public RowBuffers() {
        this(true);
    }

    private RowBuffers(boolean reuse) {
        this.reuse = reuse;
    }

    /** Buffers that always return a new zeroed array (safe to keep and to share between threads). */
    public static RowBuffers none() {
        return NONE;
    }

    /** A float array of exactly {@code length} elements for {@code slot}. */
    public float[] floats(Slot slot, int length) {
        if (!reuse) {
            return new float[length];
        }
        float[] a = floats[slot.ordinal()];
        if (a == null || a.length != length) {
            a = new float[length];
            floats[slot.ordinal()] = a;
        }
        return a;
    }

    /** A boolean array of exactly {@code length} elements for {@code slot}. */
    public boolean[] booleans(Slot slot, int length) {
        if (!reuse) {
            return new boolean[length];
        }
        boolean[] a = booleans[slot.ordinal()];
        if (a == null || a.length != length) {
            a = new boolean[length];
            booleans[slot.ordinal()] = a;
        }
        return a;
    }
}
