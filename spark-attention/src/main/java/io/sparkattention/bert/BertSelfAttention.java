package io.sparkattention.bert;

import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearWeight;
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
 *              ctx = attention(q, k, v), H heads of d        L×E                  keeps ctx, lse (H×L)
 *              y   = x + dropout(ctx·Woᵀ + bo)               (bias in the GEMM)
 *              out = LN(y)                                   residual + LN, one pass  keeps x̂, rstd
 *   backward:  dz = LN'(dout) (dγ, dβ);   dx = dz (the residual);   dy = dz∘M
 *              dWo += dyᵀ·ctx,  dbo += Σ dy,  dctx = dy·Wo
 *              dqkv = attention'(dctx)                       from lse, P recomputed
 *              dW{q,k,v} += d{q,k,v}ᵀ·x,  db{q,k,v} += Σ d{q,k,v},  dx += dqkv·[Wq; Wk; Wv]
 * </pre>
 * With dropout on the attention probabilities (training, p &gt; 0), which the shared layer does
 * not do, the attention runs on {@link AttentionCore}: the same fused projection and the same
 * kept values, the mask regenerated in the backward from its key rather than stored.
 * Thread-safe: weights only; records and scratch come from the caller.
 */
final class BertSelfAttention {

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final int width;
    private final int heads;
    private final float eps;
    private final float scale;
    private final float[] gamma;
    private final float[] beta;
    private final MultiHeadAttentionLayer layer;
    /** Training only (null otherwise): where the layer's parameter gradients go. */
    private final GradientSlots slots;
    /** Training only: offsets of the LayerNorm's weight and bias in the flat gradient. */
    private final int normWeightOffset;
    private final int normBiasOffset;
    private final BertWeights.Layer w;
    /** The projections of the probability-dropout path, prepared on first use. */
    private volatile DropoutPath dropoutPath;

    /**
     * @param offsets the ten tensors' offsets in the flat gradient (query/key/value weight and
     *                bias, output dense weight and bias, LayerNorm weight and bias: BertWeights
     *                order), or null for inference only
     */
    BertSelfAttention(BertConfig c, BertWeights.Layer w, FlashAttention kernel, int[] offsets) {
        int E = c.hidden();
        this.width = E;
        this.heads = c.heads();
        this.eps = c.layerNormEps();
        this.scale = kernel.spec().scaleFor(c.headDim());
        this.gamma = w.attentionNormWeight();
        this.beta = w.attentionNormBias();
        this.w = w;
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
        int E = width, H = heads;
        if (probsMask == null) {
            layer.selfForward(x, new int[] {0, L}, 1, rec.attention, out, null);
        } else {
            DropoutPath p = dropoutPath();
            rec.ensureCore(L, E, H);
            p.qkv.apply(x, L, rec.qkv);
            s.attention.forward(rec.qkv, L, H, E / H, scale, rec.context, rec.lse, probsMask);
            p.output.apply(rec.context, L, out);
        }
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
        int E = width, H = heads, n = L * E;
        MATH.layerNormBackward(dOut, rec.attentionNorm.xhat, rec.attentionNorm.rstd, L, E, gamma, s.dz, grad,
            normWeightOffset, normBiasOffset, rec.attentionNorm.sums);
        System.arraycopy(s.dz, 0, s.dy, 0, n);
        if (outMask != null) {
            outMask.apply(s.dy, 0, n, 0);
        }
        if (probsMask == null) {
            layer.selfBackward(x, new int[] {0, L}, 1, rec.attention, s.dy, dx, grad, slots);
        } else {
            DropoutPath p = dropoutPath();
            s.weightGradient.accumulate(L, E, E, s.dy, rec.context, grad, slots.outWeight());
            Projections.addBiasGradient(L, E, s.dy, 0, E, grad, slots.outBias());
            p.outputTransposed.apply(s.dy, L, s.dctx);
            s.attention.backward(rec.qkv, L, H, E / H, scale, rec.lse, s.dctx, s.dqkv, probsMask);
            int[] weightAt = {slots.qWeight(), slots.kWeight(), slots.vWeight()};
            int[] biasAt = {slots.qBias(), slots.kBias(), slots.vBias()};
            for (int part = 0; part < 3; part++) {
                for (int i = 0; i < L; i++) {
                    System.arraycopy(s.dqkv, i * 3 * E + part * E, s.split, i * E, E);
                }
                s.weightGradient.accumulate(L, E, E, s.split, x, grad, weightAt[part]);
                Projections.addBiasGradient(L, E, s.dqkv, part * E, 3 * E, grad, biasAt[part]);
            }
            if (dx != null) {
                p.qkvTransposed.apply(s.dqkv, L, dx);
            }
        }
        if (dx != null) {
            for (int i = 0; i < n; i++) {
                dx[i] += s.dz[i];
            }
        }
    }

    private DropoutPath dropoutPath() {
        DropoutPath p = dropoutPath;
        if (p == null) {
            p = new DropoutPath(w, width);
            dropoutPath = p;
        }
        return p;
    }

    /** The fused projection, the output projection and their transposes, for {@link AttentionCore}. */
    private static final class DropoutPath {
        final LinearWeight qkv;
        final LinearWeight output;
        final LinearWeight qkvTransposed;
        final LinearWeight outputTransposed;

        DropoutPath(BertWeights.Layer w, int E) {
            float[] fused = concat(w.queryWeight(), w.keyWeight(), w.valueWeight());
            qkv = LinearWeight.of(fused, 3 * E, E, concat(w.queryBias(), w.keyBias(), w.valueBias()));
            output = LinearWeight.of(w.attentionOutputWeight(), E, E, w.attentionOutputBias());
            qkvTransposed = LinearWeight.transposeOf(qkv.kernel(), fused, 3 * E, E);
            outputTransposed = LinearWeight.transposeOf(output.kernel(), w.attentionOutputWeight(), E, E);
        }

        private static float[] concat(float[] a, float[] b, float[] c) {
            float[] out = new float[a.length + b.length + c.length];
            System.arraycopy(a, 0, out, 0, a.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            System.arraycopy(c, 0, out, a.length + b.length, c.length);
            return out;
        }
    }
}
