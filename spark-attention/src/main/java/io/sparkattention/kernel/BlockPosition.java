package io.sparkattention.kernel;

import java.io.Serializable;

/**
 * Where a block of queries and a block of keys sit inside their sequence, so that the causal
 * mask, the window and the key padding of a partial computation ({@link FlashAttention#forwardBlock})
 * are the ones of the whole sequence.
 */
public final class BlockPosition implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int queryStart;
    private final int keyStart;
    private final int totalQueries;
    private final int totalKeys;
    private final int validKeys;

    /**
     * @param queryStart   global position of the block's first query
     * @param keyStart     global position of the block's first key
     * @param totalQueries the sequence's L
     * @param totalKeys    the sequence's S
     * @param validKeys    keys at global positions ≥ this are padding (−1: none)
     */
    public BlockPosition(int queryStart, int keyStart, int totalQueries, int totalKeys, int validKeys) {
        if (queryStart < 0 || keyStart < 0 || totalQueries < 0 || totalKeys < 0) {
            throw new IllegalArgumentException("negative block position: queryStart=" + queryStart + ", keyStart="
                + keyStart + ", L=" + totalQueries + ", S=" + totalKeys);
        }
        if (validKeys < -1 || validKeys > totalKeys) {
            throw new IllegalArgumentException("key length " + validKeys + " outside [0, " + totalKeys + "]");
        }
        this.queryStart = queryStart;
        this.keyStart = keyStart;
        this.totalQueries = totalQueries;
        this.totalKeys = totalKeys;
        this.validKeys = validKeys;
    }

    /** The whole sequence as one block. */
    public static BlockPosition whole(int queryLength, int keyLength, int validKeys) {
        return new BlockPosition(0, 0, queryLength, keyLength, validKeys);
    }

    public int queryStart() {
        return queryStart;
    }

    public int keyStart() {
        return keyStart;
    }

    public int totalQueries() {
        return totalQueries;
    }

    public int totalKeys() {
        return totalKeys;
    }

    public int validKeys() {
        return validKeys;
    }
}
