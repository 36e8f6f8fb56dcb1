package io.sparkattention.kernel;

/**
 * A row-major matrix inside a larger array: row {@code r} starts at {@code offset + r·ld}. One
 * head's columns of a multi-head layout, a block of query rows or a slice of a mask are views of
 * the caller's arrays; nothing is copied. Views are built per head or per block, never per strip.
 * Callers pass views to read q, k and v where a fused {@code [q | k | v]} projection left them
 * (offset 0, E and 2E, each with row stride 3E) and to write an output into place.
 *
 * @param data   the backing array (null for an absent optional input)
 * @param offset index of element (0, 0)
 * @param ld     leading dimension: distance between two rows
 */
public record MatrixView(float[] data, int offset, int ld) {

    /** A whole array of rows {@code cols} wide: offset 0, row stride {@code cols}. */
    public static MatrixView dense(float[] data, int cols) {
        return new MatrixView(data, 0, cols);
    }

    /** The view whose element (0, 0) is this one's (row0, col): a head's columns from a row on. */
    MatrixView columns(int row0, int col) {
        return new MatrixView(data, offset + row0 * ld + col, ld);
    }

    /**
     * Head {@code head}'s {@code dim} columns of a row-major layout whose rows hold
     * {@code heads·dim} floats (Q, K, V, the output and their gradients), from row {@code row0} on.
     */
    static MatrixView headColumns(float[] data, int row0, int heads, int dim, int head) {
        int ld = heads * dim;
        return new MatrixView(data, row0 * ld + head * dim, ld);
    }

    /**
     * Head {@code head}'s L×S plane of an L×S (shared) or H×L×S (per head) array, from query row
     * {@code row0} on; a view of nothing when {@code data} is null.
     */
    static MatrixView headPlane(float[] data, int head, int queryLength, int keyLength, int row0) {
        if (data == null) {
            return new MatrixView(null, 0, keyLength);
        }
        return new MatrixView(data, RowMask.headOffset(data.length, head, queryLength, keyLength) + row0 * keyLength,
            keyLength);
    }

    /** Sets the first {@code cols} values of rows {@code [0, rows)} to 0 (the gradients a pass adds into). */
    void zero(int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            java.util.Arrays.fill(data, offset + r * ld, offset + r * ld + cols, 0f);
        }
    }

    /** Index of element (r, c). */
    int at(int r, int c) {
        return offset + r * ld + c;
    }

    /** The view whose element (0, 0) is this one's (r, c): a block of rows and columns further in. */
    MatrixView from(int r, int c) {
        return data == null ? this : new MatrixView(data, at(r, c), ld);
    }

    /** True when there is a backing array (optional inputs such as a bias may be absent). */
    boolean present() {
        return data != null;
    }
}
