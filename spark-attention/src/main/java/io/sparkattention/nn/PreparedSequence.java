package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.RowMask;

/**
 * One sequence ready for the kernel: projected Q, K, V in the kernel's multi-head layout, its
 * shape and its mask. What execution strategies split by head or by key block.
 */
public final class PreparedSequence {

    private final AttentionShape shape;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final RowMask mask;

    /**
     * @param shape L, S, H, Hkv, d, dv
     * @param q     L×(H·d)
     * @param k     S×(Hkv·d)
     * @param v     S×(Hkv·dv)
     * @param mask  padding, boolean mask, bias
     */
    public PreparedSequence(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask) {
        this.shape = shape;
        this.q = q;
        this.k = k;
        this.v = v;
        this.mask = mask;
    }

    public AttentionShape shape() {
        return shape;
    }

    public float[] q() {
        return q;
    }

    public float[] k() {
        return k;
    }

    public float[] v() {
        return v;
    }

    public RowMask mask() {
        return mask;
    }
}
