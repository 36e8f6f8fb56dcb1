package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.Attention;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;

/**
 * One head of one row ({@link Strategy#HEAD}): that head's L×d queries, the S×d keys and S×dv
 * values of its key/value head, and its plane of the mask and bias. Computed exactly as the
 * kernel computes that head inside a whole row: with the row's blocks
 * ({@link FlashAttention#withBlocksOf}), which may depend on the row's head count.
 */
final class HeadUnit implements AttentionUnit {

    private static final long serialVersionUID = 1L;

    private final int head;
    /** The row's shape (all heads), for its blocks. */
    private final AttentionShape row;
    private final AttentionShape shape;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final int validKeys;
    private final boolean[] allowed;
    private final float[] bias;

    private HeadUnit(int head, AttentionShape row, AttentionShape shape, float[] q, float[] k, float[] v,
                     int validKeys, boolean[] allowed, float[] bias) {
        this.head = head;
        this.row = row;
        this.shape = shape;
        this.q = q;
        this.k = k;
        this.v = v;
        this.validKeys = validKeys;
        this.allowed = allowed;
        this.bias = bias;
    }

    /** Head {@code h} of {@code p}, with its own copies of its inputs. */
    static HeadUnit of(PreparedSequence p, int h) {
        AttentionShape s = p.shape();
        int L = s.queryLength(), S = s.keyLength(), d = s.headDim(), dv = s.valueDim();
        int kv = s.kvHeadOf(h);
        RowMask mask = p.mask();
        return new HeadUnit(h, s, new AttentionShape(L, S, 1, 1, d, dv),
            Slices.block(p.q(), 0, L, h * d, d),
            Slices.block(p.k(), 0, S, kv * d, d),
            Slices.block(p.v(), 0, S, kv * dv, dv),
            mask.validKeys(),
            Slices.plane(mask.allowed(), h, L, S),
            Slices.plane(mask.bias(), h, L, S));
    }

    @Override
    public int resultSlot() {
        return head;
    }

    @Override
    public UnitResult compute(FlashAttention kernel, boolean weights, Workspace ws) {
        RowMask mask = RowMask.keyLength(validKeys).withAllowed(allowed).withBias(bias);
        Attention.Output out = Attention.compute(kernel.withBlocksOf(row), shape, q, k, v, mask,
            weights ? AttentionWeightsMode.PER_HEAD : AttentionWeightsMode.NONE, ws);
        return new HeadResult(head, shape.queryLength(), out.values(), out.weights());
    }

    /** One head's output (L×dv) and weights (L×S, or null). */
    static final class HeadResult implements UnitResult {

        private static final long serialVersionUID = 1L;

        private final int head;
        private final int rows;
        private final float[] values;
        private final float[] weights;

        HeadResult(int head, int rows, float[] values, float[] weights) {
            this.head = head;
            this.rows = rows;
            this.values = values;
            this.weights = weights;
        }

        @Override
        public void addTo(RowOutput output) {
            output.putHeadRows(head, 0, rows, values);
            if (weights != null) {
                output.addHeadWeights(head, weights);
            }
        }
    }
}
