package io.sparkattention.bert;

import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.ProbabilityDropout;
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
 *   forward:   qkv = x·[Wq; Wk; Wv]ᵀ + [bq; bk; bv]          L×3E, one GEMM       keeps qkv
 *              ctx = (P∘M)·v, P = softmax(scale·q·kᵀ)        L×E, H heads of d    keeps ctx, lse (H×L)
 *              y   = x + dropout(ctx·Woᵀ + bo)               (bias in the GEMM)
 *              out = LN(y)                                   residual + LN, one pass  keeps x̂, rstd
 *   backward:  dz = LN'(dout) (dγ, dβ);   dx = dz (the residual);   dy = dz∘M
 *              dWo += dyᵀ·ctx,  dbo += Σ dy,  dctx = dy·Wo
 *              dqkv = attention'(dctx)                       from lse, P and M regenerated
 *              dW{q,k,v} += d{q,k,v}ᵀ·x,  db{q,k,v} += Σ d{q,k,v},  dx += dqkv·[Wq; Wk; Wv]
 * </pre>
 * In training the probabilities' dropout M (p &gt; 0) is the kernel's ({@link ProbabilityDropout},
 * from the row's {@link DropoutMask}), on the same path: FlashAttention's dropout, the mask
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
     * Training forward of one row.
     *
     * @param x         L×E input (read)
     * @param out       L×E, written with the block's output
     * @param probsMask dropout of the probabilities, or null
     * @param outMask   dropout of the output projection, or null
     */
    void forward(float[] x, int L, float[] out, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                 DropoutMask probsMask, DropoutMask outMask) {
        int E = width;
        layer.selfForward(x, new int[] {0, L}, 1, rec.attention, out, null, probabilities(probsMask, L));
        if (outMask != null) {
            outMask.apply(out, 0, L * E, 0);
        }
        MATH.layerNorm(out, x, L, E, gamma, beta, eps, rec.attentionNorm.xhat, rec.attentionNorm.rstd);
    }

    /**
     * Training backward of one row (after {@link #forward(float[], int, float[], TrainingRecord.Layer,
     * TrainingRecord.Scratch, DropoutMask, DropoutMask)} with the same masks): parameter gradients
     * added into {@code grad}.
     *
     * @param x    the forward's input
     * @param dOut L×E, the gradient of the output (read)
     * @param dx   L×E, written with the gradient of x, or null when nobody needs it
     */
    void backward(float[] x, int L, float[] dOut, float[] dx, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                  DropoutMask probsMask, DropoutMask outMask, float[] grad) {
        int E = width, n = L * E;
        MATH.layerNormBackward(dOut, rec.attentionNorm.xhat, rec.attentionNorm.rstd, L, E, gamma, s.dz, grad,
            normWeightOffset, normBiasOffset, rec.attentionNorm.sums);
        System.arraycopy(s.dz, 0, s.dy, 0, n);
        if (outMask != null) {
            outMask.apply(s.dy, 0, n, 0);
        }
        layer.selfBackward(x, new int[] {0, L}, 1, rec.attention, s.dy, dx, grad, slots, probabilities(probsMask, L));
        if (dx != null) {
            for (int i = 0; i < n; i++) {
                dx[i] += s.dz[i];
            }
        }
    }

    /** The row's probability dropout for the layer (one sequence of L tokens), or null for none. */
    private static ProbabilityDropout[] probabilities(DropoutMask mask, int L) {
        return mask == null ? null : new ProbabilityDropout[] {mask.probabilities(L, L)};
    }
}
