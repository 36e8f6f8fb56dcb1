package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionSpec;

/**
 * Which keys a block of queries can see through the structural masks — causal, sliding window,
 * key padding — so the sequence strategy emits no unit for a (query block, key block) pair that
 * is masked entirely. The same band as the kernel's: query {@code i} sees keys
 * {@code [i + off − left, i + off + right]} (an unbounded side is open, causal means right = 0)
 * below the key limit, where {@code off} is the causal alignment's diagonal offset. Both bounds
 * grow with {@code i}, so a query block {@code [q0, q1)} sees at most keys
 * {@code [lo(q0), hi(q1 − 1)]}. A boolean mask or bias may mask more; such units are computed and
 * contribute nothing to the merge.
 */
final class VisibleKeys {

    private final long diagonal;
    private final long left;
    private final long right;
    private final long keyLimit;

    /**
     * @param spec        causal, alignment, window
     * @param queryLength the sequence's L
     * @param keyLength   the sequence's S
     * @param validKeys   key padding: keys at positions ≥ this are masked (−1: none)
     */
    VisibleKeys(AttentionSpec spec, int queryLength, int keyLength, int validKeys) {
        this.diagonal = spec.alignment().diagonalOffset(queryLength, keyLength);
        this.left = spec.windowLeft();
        this.right = spec.causal() ? 0 : spec.windowRight();
        this.keyLimit = validKeys < 0 ? keyLength : Math.min(keyLength, validKeys);
    }

    /** True when some query of {@code [q0, q1)} may see some key of {@code [k0, k1)}. */
    boolean any(int q0, int q1, int k0, int k1) {
        long lo = left < 0 ? 0 : Math.max(0, q0 + diagonal - left);
        long hi = right < 0 ? keyLimit - 1 : Math.min(keyLimit - 1, q1 - 1 + diagonal + right);
        return Math.max(lo, k0) <= Math.min(hi, k1 - 1L);
    }
}
