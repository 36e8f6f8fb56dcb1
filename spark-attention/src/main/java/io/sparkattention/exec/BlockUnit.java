package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.BlockPosition;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LseMerge;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.PreparedSequence;

/**
 * One (head, query block, key block) of one row ({@link Strategy#SEQUENCE}): the block's
 * queries of that head, the block's keys and values of its key/value head, the block's slice of
 * the mask and bias, and where the block sits in the sequence (so causal, window and padding stay
 * those of the whole sequence). Its memory is the blocks', whatever the sequence length.
 */
final class BlockUnit implements AttentionUnit {

    private static final long serialVersionUID = 1L;

    private final int head;
    private final int groupSlot;
    private final int rows;
    private final int keys;
    private final int headDim;
    private final int valueDim;
    private final BlockPosition position;
    private final float[] q;
    private final float[] k;
    private final float[] v;
    private final boolean[] allowed;
    private final float[] bias;

    private BlockUnit(int head, int groupSlot, int rows, int keys, int headDim, int valueDim, BlockPosition position,
                      float[] q, float[] k, float[] v, boolean[] allowed, float[] bias) {
        this.head = head;
        this.groupSlot = groupSlot;
        this.rows = rows;
        this.keys = keys;
        this.headDim = headDim;
        this.valueDim = valueDim;
        this.position = position;
        this.q = q;
        this.k = k;
        this.v = v;
        this.allowed = allowed;
        this.bias = bias;
    }

    /**
     * Queries {@code [q0, q0+rows)} × keys {@code [k0, k0+keys)} of head {@code h} of {@code p}.
     *
     * @param groupSlot partition hint of the unit's merge group (row, head, query block)
     */
    static BlockUnit of(PreparedSequence p, int h, int q0, int rows, int k0, int keys, int groupSlot) {
        AttentionShape s = p.shape();
        int L = s.queryLength(), S = s.keyLength(), d = s.headDim(), dv = s.valueDim();
        int kv = s.kvHeadOf(h);
        return new BlockUnit(h, groupSlot, rows, keys, d, dv,
            new BlockPosition(q0, k0, L, S, p.mask().validKeys()),
            Slices.block(p.q(), q0, rows, h * d, d),
            Slices.block(p.k(), k0, keys, kv * d, d),
            Slices.block(p.v(), k0, keys, kv * dv, dv),
            Slices.planeBlock(p.mask().allowed(), h, L, S, q0, rows, k0, keys),
            Slices.planeBlock(p.mask().bias(), h, L, S, q0, rows, k0, keys));
    }

    @Override
    public int resultSlot() {
        return groupSlot;
    }

    @Override
    public UnitResult compute(FlashAttention kernel, boolean weights, Workspace ws) {
        float[] out = new float[rows * valueDim];
        float[] lse = new float[rows];
        kernel.forwardBlock(rows, keys, headDim, valueDim, q, k, v, position, allowed, bias, out, lse, ws);
        return new Partial(head, position.queryStart(), rows, valueDim, out, lse);
    }

    /**
     * A block's queries attended over some keys: the output normalised over those keys and its
     * log-sum-exp (−∞ where a query saw none of them). Partials of one (row, head, query block)
     * over disjoint key blocks merge exactly ({@link LseMerge}).
     */
    static final class Partial implements UnitResult {

        private static final long serialVersionUID = 1L;

        private final int head;
        private final int queryStart;
        private final int rows;
        private final int valueDim;
        private final float[] out;
        private final float[] lse;

        Partial(int head, int queryStart, int rows, int valueDim, float[] out, float[] lse) {
            this.head = head;
            this.queryStart = queryStart;
            this.rows = rows;
            this.valueDim = valueDim;
            this.out = out;
            this.lse = lse;
        }

        /** Folds {@code next} (the same queries over later keys) into this partial, in place. */
        void merge(Partial next) {
            LseMerge.mergeInto(rows, valueDim, out, lse, next.out, next.lse);
        }

        @Override
        public void addTo(RowOutput output) {
            output.putHeadRows(head, queryStart, rows, out);
        }
    }
}
