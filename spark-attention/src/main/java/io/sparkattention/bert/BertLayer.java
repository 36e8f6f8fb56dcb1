package io.sparkattention.bert;

import io.sparkattention.kernel.FlashAttention;

import java.util.Arrays;

/**
 * Hugging Face's {@code BertLayer}: {@link BertSelfAttention} then {@link BertFeedForward}, each
 * with its residual and LayerNorm (post-LN).
 * <pre>
 *   forward:   mid = attention(x);  out = feedForward(mid)          keeps the blocks' records and mid (L×E)
 *   backward:  dmid = feedForward'(dout);  dx = attention'(dmid)
 * </pre>
 * Thread-safe: weights only; records and scratch come from the caller.
 */
final class BertLayer {

    private final int index;
    private final BertSelfAttention attention;
    private final BertFeedForward feedForward;

    /**
     * @param index   the layer's place in the encoder (for its dropout sites)
     * @param offsets the layer's sixteen tensors' offsets in a flat gradient, in
     *                {@link BertWeights#shapes} order, or null for inference only
     */
    BertLayer(BertConfig c, BertWeights.Layer w, FlashAttention kernel, int index, int[] offsets) {
        this.index = index;
        this.attention = new BertSelfAttention(c, w, kernel, offsets == null ? null : Arrays.copyOfRange(offsets, 0, 10));
        this.feedForward = new BertFeedForward(c, w, offsets == null ? null : Arrays.copyOfRange(offsets, 10, 16));
    }

    int index() {
        return index;
    }

    /** Whether the projections compute each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return feedForward.rowsIndependent();
    }

    /** Inference over stacked sequences: x (M×E) replaced by the layer's output. */
    void forward(float[] x, int[] starts, int sequences, EncoderScratch s, float[] probs) {
        attention.forward(x, starts, sequences, s, probs);
        feedForward.forward(x, starts[sequences], s);
    }

    /**
     * Training forward of one row: {@code out} (L×E) written, the records kept in {@code rec}.
     *
     * @param masks the row's dropout masks, or null for none
     */
    void forward(float[] x, int L, float[] out, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                 DropoutMask[] masks) {
        attention.forward(x, L, rec.mid, rec, s, mask(masks, DropoutMask.ATTENTION_PROBS),
            mask(masks, DropoutMask.ATTENTION_OUTPUT));
        feedForward.forward(rec.mid, L, out, rec, s, mask(masks, DropoutMask.FEED_FORWARD_OUTPUT));
    }

    /**
     * Training backward of one row.
     *
     * @param dOut L×E gradient of the output (read)
     * @param dx   L×E, written with the gradient of x; null when nobody needs it
     */
    void backward(float[] x, int L, float[] dOut, float[] dx, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                  DropoutMask[] masks, float[] grad) {
        feedForward.backward(rec.mid, L, dOut, s.tmp, rec, s, mask(masks, DropoutMask.FEED_FORWARD_OUTPUT), grad);
        attention.backward(x, L, s.tmp, dx, rec, s, mask(masks, DropoutMask.ATTENTION_PROBS),
            mask(masks, DropoutMask.ATTENTION_OUTPUT), grad);
    }

    private static DropoutMask mask(DropoutMask[] masks, int kind) {
        return masks == null ? null : masks[kind];
    }
}
