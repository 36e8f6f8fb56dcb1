package io.sparkattention.exec;

import io.sparkattention.kernel.MatrixView;

/**
 * Contiguous copies of sub-matrices of row-major arrays: a head's columns of Q, K or V, a block
 * of rows of them, and a block of a mask or bias plane. Units carry such copies so that each
 * holds only its own inputs.
 */
final class Slices {

    private Slices() {
    }

    /**
     * Rows {@code [row0, row0+rows)}, columns {@code [col0, col0+width)} of a view (whose offset
     * lies in its first row, as a fused projection's columns do), as a rows×width array.
     */
    static float[] block(MatrixView src, int row0, int rows, int col0, int width) {
        return block(src.data(), src.ld(), row0, rows, src.offset() + col0, width);
    }

    /**
     * Rows {@code [row0, row0+rows)}, columns {@code [col0, col0+width)} of a matrix with
     * leading dimension {@code ld}, as a rows×width array.
     */
    static float[] block(float[] src, int ld, int row0, int rows, int col0, int width) {
        float[] out = new float[rows * width];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, (row0 + r) * ld + col0, out, r * width, width);
        }
        return out;
    }

    /** The same for a boolean matrix. */
    static boolean[] block(boolean[] src, int ld, int row0, int rows, int col0, int width) {
        boolean[] out = new boolean[rows * width];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, (row0 + r) * ld + col0, out, r * width, width);
        }
        return out;
    }

    /**
     * Offset of head {@code head}'s L×S plane in a mask or bias that is either one plane shared by
     * all heads (L×S) or one plane per head (H×L×S).
     */
    static int planeOffset(int length, int head, int queryLength, int keyLength) {
        int plane = queryLength * keyLength;
        return length == plane ? 0 : head * plane;
    }

    /** Head {@code head}'s L×S plane of a mask (shared or per head), or null. */
    static boolean[] plane(boolean[] mask, int head, int queryLength, int keyLength) {
        if (mask == null) {
            return null;
        }
        int off = planeOffset(mask.length, head, queryLength, keyLength);
        return block(mask, keyLength, off / Math.max(1, keyLength), queryLength, 0, keyLength);
    }

    /** Head {@code head}'s L×S plane of a bias (shared or per head), or null. */
    static float[] plane(float[] bias, int head, int queryLength, int keyLength) {
        if (bias == null) {
            return null;
        }
        int off = planeOffset(bias.length, head, queryLength, keyLength);
        return block(bias, keyLength, off / Math.max(1, keyLength), queryLength, 0, keyLength);
    }

    /** Rows×keys block of head {@code head}'s plane of a mask, or null. */
    static boolean[] planeBlock(boolean[] mask, int head, int queryLength, int keyLength, int row0, int rows,
                                int key0, int keys) {
        if (mask == null) {
            return null;
        }
        int firstRow = planeOffset(mask.length, head, queryLength, keyLength) / keyLength;
        return block(mask, keyLength, firstRow + row0, rows, key0, keys);
    }

    /** Rows×keys block of head {@code head}'s plane of a bias, or null. */
    static float[] planeBlock(float[] bias, int head, int queryLength, int keyLength, int row0, int rows,
                              int key0, int keys) {
        if (bias == null) {
            return null;
        }
        int firstRow = planeOffset(bias.length, head, queryLength, keyLength) / keyLength;
        return block(bias, keyLength, firstRow + row0, rows, key0, keys);
    }
}
