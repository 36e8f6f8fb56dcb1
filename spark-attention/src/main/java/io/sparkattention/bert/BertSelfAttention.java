package io.sparkattention.bert;

import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.GradientSlots;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;

/**
 * Hugging Face's {@code BertAttention} ({@code BertSelfAttention} + {@code BertSelfOutput}): fused
 * QKV projection, multi-head attention over the row's own tokens, output projection, dropout,
 * residual and LayerNorm. The attention itself is the library's one multi-head layer
 * ({@link MultiHeadAttentionLayer#selfForward}/{@link MultiHeadAttentionLayer#selfBackward}: one
 * GEMM for q, k and v, each sequence read in place, the kernel's direct or tiled path by length).
 * <pre>
 *   forward:   qkv = x·[Wq; Wk; Wv]ᵀ + [bq; bk; bv]          M×3E, one GEMM over the stacked rows   keeps qkv
 *              ctx = (P∘M)·v, P = softmax(scale·q·kᵀ)        per row (L×E), H heads of d   keeps ctx, lse (H×L)
 *              y   = x + dropout(ctx·Woᵀ + bo)               (bias in the GEMM)
 *              out = LN(y)                                   residual + LN, one pass  keeps x̂, rstd
 *   backward:  dz = LN'(dout) (dγ, dβ);   dx = dz (the residual);   dy = dz∘M
 *              dWo += dyᵀ·ctx,  dbo += Σ dy,  dctx = dy·Wo
 *              dqkv = attention'(dctx)                       from lse, P and M regenerated
 *              dW{q,k,v} += d{q,k,v}ᵀ·x,  db{q,k,v} += Σ d{q,k,v},  dx += dqkv·[Wq; Wk; Wv]
 * </pre>
 * In training the probabilities' dropout M (p &gt; 0) is the kernel's
 * ({@link io.sparkattention.kernel.ProbabilityDropout}, from each row's {@link DropoutMask}), on
 * the same path: FlashAttention's dropout, the mask
 * regenerated tile by tile in the backward from its key rather than stored.
 * Thread-safe: weights only; records and scratch come from the caller.
 */
final class BertSelfAttention {

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final int width;
    private final float eps;
    private final float[] gamma;
    private final float[] beta;
    private final MultiHeadAttentionLayer layer;
    /** Training only (null otherwise): where the layer's parameter gradients go. */
    private final GradientSlots slots;
    /** Training only: offsets of the LayerNorm's weight and bias in the flat gradient. */
    private final int normWeightOffset;
    private final int normBiasOffset;

    /**
     * @param offsets the ten tensors' offsets in the flat gradient (query/key/value weight and
     *                bias, output dense weight and bias, LayerNorm weight and bias: BertWeights
     *                order), or null for inference only
     */
    BertSelfAttention(BertConfig c, BertWeights.Layer w, FlashAttention kernel, int[] offsets) {
        int E = c.hidden();
        this.width = E;
        this.eps = c.layerNormEps();
        this.gamma = w.attentionNormWeight();
        this.beta = w.attentionNormBias();
        this.layer = new MultiHeadAttentionLayer(MultiHeadAttentionWeights.of(E, c.heads(), E, E, w.queryWeight(),
            w.keyWeight(), w.valueWeight(), w.queryBias(), w.keyBias(), w.valueBias(), w.attentionOutputWeight(),
            w.attentionOutputBias()), kernel);
        if (offsets != null) {
            this.slots = new GradientSlots(offsets[0], offsets[2], offsets[4], offsets[1], offsets[3], offsets[5],
                offsets[6], offsets[7]);
            this.normWeightOffset = offsets[8];
            this.normBiasOffset = offsets[9];
        } else {
            this.slots = null;
            this.normWeightOffset = -1;
            this.normBiasOffset = -1;
        }
    }

    /**
     * Inference over stacked sequences (sequence r: rows {@code [starts[r], starts[r+1])} of x,
     * M×E), x replaced by the block's output. Writes the heads' probabilities (H×L×L) of the only
     * sequence when {@code probs} is not null.
     */
    void forward(float[] x, int[] starts, int sequences, EncoderScratch s, float[] probs) {
        int M = starts[sequences];
        layer.selfForward(x, starts, sequences, s.attention, s.projected, probs);
        MATH.layerNorm(x, s.projected, M, width, gamma, beta, eps);
    }

    /**
     * Training forward of stacked rows (each attends over its own tokens).
     *
     * @param x     M×E input (read)
     * @param out   M×E, written with the block's output
     * @param index the layer's index, for its dropout sites (each row's own masks)
     */
    void forward(float[] x, RowStack rows, float[] out, TrainingRecord.Layer rec, int index) {
        int E = width, M = rows.tokens();
        layer.selfForward(x, rows.starts(), rows.count(), rec.attention, out, null,
            rows.probabilities(DropoutMask.site(index, DropoutMask.ATTENTION_PROBS)));
        rows.apply(DropoutMask.site(index, DropoutMask.ATTENTION_OUTPUT), out, E);
        MATH.layerNorm(out, x, M, E, gamma, beta, eps, rec.attentionNorm.xhat(), rec.attentionNorm.rstd());
    }

    /**
     * Training backward of stacked rows (after {@link #forward(float[], RowStack, float[],
     * TrainingRecord.Layer, int)} of the same rows): parameter gradients added into {@code grad},
     * each product over all M rows.
     *
     * @param x    the forward's input
     * @param dOut M×E, the gradient of the output (read)
     * @param dx   M×E, written with the gradient of x, or null when nobody needs it
     */
    void backward(float[] x, RowStack rows, float[] dOut, float[] dx, TrainingRecord.Layer rec,
                  TrainingRecord.Scratch s, int index, float[] grad) {
        int E = width, M = rows.tokens(), n = M * E;
        MATH.layerNormBackward(dOut, rec.attentionNorm.xhat(), rec.attentionNorm.rstd(), M, E, gamma, s.dz, grad,
            normWeightOffset, normBiasOffset, rec.attentionNorm.sums());
        System.arraycopy(s.dz, 0, s.dy, 0, n);
        rows.apply(DropoutMask.site(index, DropoutMask.ATTENTION_OUTPUT), s.dy, E);
        layer.selfBackward(x, rows.starts(), rows.count(), rec.attention, s.dy, dx, grad, slots,
            rows.probabilities(DropoutMask.site(index, DropoutMask.ATTENTION_PROBS)));
        if (dx != null) {
            for (int i = 0; i < n; i++) {
                dx[i] += s.dz[i];
            }
        }
    }
}
