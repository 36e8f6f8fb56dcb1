package io.sparkattention.kernel;

/**
 * The structural part of a mask — causal, sliding window, key length — as a band of keys per query.
 *
 * <p>Query {@code i} (global position) may see keys {@code [lo(i), hi(i)]}. Both bounds are
 * non-decreasing in {@code i}, so a query block's reachable keys are {@code [lo(first), hi(last)]}
 * and a tile is wholly inside the band when {@code lo(last) ≤ j0} and {@code hi(first) ≥ j1 − 1}.
 * That is what lets the kernel skip masked tiles and mask only the tiles that straddle the band's
 * edge, without ever building an L×S mask, and what lets the sequence strategy emit no unit for a
 * (query block, key block) pair that is masked entirely ({@link #any}). A boolean mask or bias may
 * mask more; the band does not know them.
 */
public final class KeyBand {

    private final long diagonal;
    private final long left;   // < 0: unbounded
    private final long right;  // < 0: unbounded
    private final long keyLimit;

    /**
     * @param spec          causal flag, alignment and window
     * @param queryLength   total L of the sequence (for the bottom-right alignment)
     * @param keyLength     total S of the sequence
     * @param validKeys     keys at positions ≥ this are padding (−1 for none, as in {@link RowMask#validKeys})
     */
    public KeyBand(AttentionSpec spec, int queryLength, int keyLength, int validKeys) {
        this.diagonal = spec.alignment().diagonalOffset(queryLength, keyLength);
        this.left = spec.windowLeft();
        long r = spec.windowRight();
        this.right = spec.causal() ? 0 : r;
        this.keyLimit = validKeys < 0 ? keyLength : Math.min(keyLength, validKeys);
    }

    /** First key query {@code i} may see (may exceed {@link #hi} when the row is fully masked). */
    public long lo(long i) {
        return left < 0 ? 0 : Math.max(0, i + diagonal - left);
    }

    /** Last key query {@code i} may see (−1 or less when none). */
    public long hi(long i) {
        long h = keyLimit - 1;
        return right < 0 ? h : Math.min(h, i + diagonal + right);
    }

    /**
     * First query that may see key {@code j} ({@link Long#MAX_VALUE} when none may). The inverse
     * of {@link #hi}: queries see key j from here on, because {@code hi} is non-decreasing.
     */
    long firstQuery(long j) {
        if (j >= keyLimit) {
            return Long.MAX_VALUE;
        }
        return right < 0 ? Long.MIN_VALUE : j - diagonal - right;
    }

    /** Last query that may see key {@code j ≥ 0} ({@link Long#MAX_VALUE} when unbounded): the inverse of {@link #lo}. */
    long lastQuery(long j) {
        return left < 0 ? Long.MAX_VALUE : j - diagonal + left;
    }

    /**
     * True when the band's edge runs through the block of queries {@code [qFirst, qLast]} × keys
     * {@code [kFirst, kLast]}: some query of it may not see some key of it.
     */
    boolean cuts(long qFirst, long qLast, long kFirst, long kLast) {
        return lo(qLast) > kFirst || hi(qFirst) < kLast;
    }

    /** True when some query of {@code [q0, q1)} may see some key of {@code [k0, k1)}. */
    public boolean any(long q0, long q1, long k0, long k1) {
        if (q0 >= q1 || k0 >= k1) {
            return false;
        }
        return Math.max(lo(q0), k0) <= Math.min(hi(q1 - 1), k1 - 1);
    }
}
