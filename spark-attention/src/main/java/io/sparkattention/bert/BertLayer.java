package io.sparkattention.bert;

import io.sparkattention.kernel.FlashAttention;

import java.util.Arrays;

/**
 * Hugging Face's {@code BertLayer}: {@link BertSelfAttention} then {@link BertFeedForward}, each
 * with its residual and LayerNorm (post-LN).
 * <pre>
 *   forward:   mid = attention(x);  out = feedForward(mid)          keeps the blocks' records and mid (M×E)
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

    /** Training forward of stacked rows: {@code out} (M×E) written, the records kept in {@code rec}. */
    void forward(float[] x, RowStack rows, float[] out, TrainingRecord.Layer rec, TrainingRecord.Scratch s) {
        attention.forward(x, rows, rec.mid, rec, index);
        feedForward.forward(rec.mid, rows, out, rec, s, index);
    }

    /**
     * Training backward of stacked rows.
     *
     * @param dOut M×E gradient of the output (read)
     * @param dx   M×E, written with the gradient of x; null when nobody needs it
     */
    void backward(float[] x, RowStack rows, float[] dOut, float[] dx, TrainingRecord.Layer rec,
                  TrainingRecord.Scratch s, float[] grad) {
        feedForward.backward(rec.mid, rows, dOut, s.tmp, rec, s, index, grad);
        attention.backward(x, rows, s.tmp, dx, rec, s, index, grad);
    }
}
