package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;

/**
 * One sequence ready for the kernel: projected Q, K, V in the kernel's multi-head layout, its
 * shape and its mask. What execution strategies split by head or by key block.
 *
 * <p>Q, K and V are views: whole arrays of their own (row stride H·d, Hkv·d, Hkv·dv), or the
 * columns of one fused {@code [q | k | v]} projection (offsets 0, E and E + Ekv, row stride
 * E + 2·Ekv) that the kernel reads in place, never copied apart.
 */
public final class PreparedSequence {

    private final AttentionShape shape;
    private final MatrixView q;
    private final MatrixView k;
    private final MatrixView v;
    private final RowMask mask;

    /**
     * Whole arrays, one per input.
     *
     * @param shape L, S, H, Hkv, d, dv
     * @param q     L×(H·d)
     * @param k     S×(Hkv·d)
     * @param v     S×(Hkv·dv)
     * @param mask  padding, boolean mask, bias
     */
    public PreparedSequence(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask) {
        this(shape, MatrixView.dense(q, shape.numHeads() * shape.headDim()),
            MatrixView.dense(k, shape.numKvHeads() * shape.headDim()),
            MatrixView.dense(v, shape.numKvHeads() * shape.valueDim()), mask);
    }

    /**
     * Views, e.g. a fused projection's columns; each view's offset lies in its first row.
     *
     * @param q L rows of H·d
     * @param k S rows of Hkv·d
     * @param v S rows of Hkv·dv
     */
    public PreparedSequence(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask) {
        this.shape = shape;
        this.q = q;
        this.k = k;
        this.v = v;
        this.mask = mask;
    }

    public AttentionShape shape() {
        return shape;
    }

    /** Q: L rows of H·d. */
    public MatrixView q() {
        return q;
    }

    /** K: S rows of Hkv·d. */
    public MatrixView k() {
        return k;
    }

    /** V: S rows of Hkv·dv. */
    public MatrixView v() {
        return v;
    }

    public RowMask mask() {
        return mask;
    }
}
