package io.sparkattention.kernel;

import java.io.Serializable;

/**
 * The shape of one sequence's multi-head attention.
 *
 * <p>Layout (PyTorch's): Q is L×(H·d), K is S×(Hkv·d), V is S×(Hkv·dv), the output L×(H·dv), all
 * row-major; columns {@code [h·d, (h+1)·d)} belong to head {@code h}. With grouped-query
 * attention ({@code Hkv < H}), query head {@code h} uses key/value head {@code h / (H / Hkv)}.
 */
public final class AttentionShape implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int queryLength;
    private final int keyLength;
    private final int numHeads;
    private final int numKvHeads;
    private final int headDim;
    private final int valueDim;

    /**
     * @param queryLength L ≥ 0
     * @param keyLength   S ≥ 0
     * @param numHeads    H ≥ 1
     * @param numKvHeads  Hkv ≥ 1, dividing H
     * @param headDim     d ≥ 1 (query and key columns per head)
     * @param valueDim    dv ≥ 1 (value and output columns per head)
     */
    public AttentionShape(int queryLength, int keyLength, int numHeads, int numKvHeads, int headDim, int valueDim) {
        if (queryLength < 0 || keyLength < 0) {
            throw new IllegalArgumentException("sequence lengths must be >= 0, got L=" + queryLength + ", S=" + keyLength);
        }
        Heads.checkGroups(numHeads, numKvHeads);
        if (headDim < 1 || valueDim < 1) {
            throw new IllegalArgumentException("head dimensions must be >= 1, got d=" + headDim + ", dv=" + valueDim);
        }
        // Q, K, V and the output are single arrays; L×S never is (only requested weights are).
        long widest = (long) Math.max(queryLength, keyLength) * numHeads * Math.max(headDim, valueDim);
        if (widest > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("sequence too large for one Java array: L=" + queryLength
                + ", S=" + keyLength + ", H=" + numHeads + ", d=" + headDim + ", dv=" + valueDim);
        }
        this.queryLength = queryLength;
        this.keyLength = keyLength;
        this.numHeads = numHeads;
        this.numKvHeads = numKvHeads;
        this.headDim = headDim;
        this.valueDim = valueDim;
    }

    /** Self-attention shape: L = S, Hkv = H, dv = d. */
    public static AttentionShape self(int length, int numHeads, int headDim) {
        return new AttentionShape(length, length, numHeads, numHeads, headDim, headDim);
    }

    public int queryLength() {
        return queryLength;
    }

    public int keyLength() {
        return keyLength;
    }

    public int numHeads() {
        return numHeads;
    }

    public int numKvHeads() {
        return numKvHeads;
    }

    public int headDim() {
        return headDim;
    }

    public int valueDim() {
        return valueDim;
    }

    /** The key/value head that query head {@code h} reads. */
    public int kvHeadOf(int h) {
        return h / (numHeads / numKvHeads);
    }

    /** Values in Q: L·H·d. */
    public int querySize() {
        return queryLength * numHeads * headDim;
    }

    /** Values in K: S·Hkv·d. */
    public int keySize() {
        return keyLength * numKvHeads * headDim;
    }

    /** Values in V: S·Hkv·dv. */
    public int valueSize() {
        return keyLength * numKvHeads * valueDim;
    }

    /** Values in the output: L·H·dv. */
    public int outputSize() {
        return queryLength * numHeads * valueDim;
    }

    @Override
    public String toString() {
        return "L=" + queryLength + ", S=" + keyLength + ", H=" + numHeads + ", Hkv=" + numKvHeads
            + ", d=" + headDim + ", dv=" + valueDim;
    }

    /** A whole array as the view of this shape's queries or query gradient: L rows of H·d. */
    MatrixView queries(float[] a) {
        return new MatrixView(a, 0, numHeads * headDim);
    }

    /** A whole array as the keys' view (or their gradient's): S rows of Hkv·d. */
    MatrixView keys(float[] a) {
        return new MatrixView(a, 0, numKvHeads * headDim);
    }

    /** A whole array as the values' view (or their gradient's): S rows of Hkv·dv. */
    MatrixView values(float[] a) {
        return new MatrixView(a, 0, numKvHeads * valueDim);
    }

    /** A whole array as the output's view (or its gradient's): L rows of H·dv. */
    MatrixView outputs(float[] a) {
        return new MatrixView(a, 0, numHeads * valueDim);
    }
}
