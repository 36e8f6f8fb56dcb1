package io.sparkattention.kernel;

/**
 * A row-major boolean matrix inside a larger array (true = may attend): row {@code r} starts at
 * {@code offset + r·ld}. The boolean counterpart of {@link MatrixView}.
 *
 * @param data   the backing array, or null when there is no boolean mask
 * @param offset index of element (0, 0)
 * @param ld     leading dimension
 */
record MaskView(boolean[] data, int offset, int ld) {

    /**
     * Head {@code head}'s L×S plane of an L×S or H×L×S mask, from query row {@code row0} on; a view
     * of nothing when {@code data} is null.
     */
    static MaskView headPlane(boolean[] data, int head, int queryLength, int keyLength, int row0) {
        if (data == null) {
            return new MaskView(null, 0, keyLength);
        }
        return new MaskView(data, RowMask.headOffset(data.length, head, queryLength, keyLength) + row0 * keyLength,
            keyLength);
    }

    /** Index of element (r, c). */
    int at(int r, int c) {
        return offset + r * ld + c;
    }

    /** The view whose element (0, 0) is this one's (r, c). */
    MaskView from(int r, int c) {
        return data == null ? this : new MaskView(data, at(r, c), ld);
    }

    boolean present() {
        return data != null;
    }
}
