package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.DirectAttention;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.RowMask;

/**
 * Hugging Face's {@code BertAttention} ({@code BertSelfAttention} + {@code BertSelfOutput}): fused
 * QKV projection, multi-head attention over the row's own tokens, output projection, dropout,
 * residual and LayerNorm.
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
 * Inference runs stacked sequences, each attending over its own rows: up to
 * {@link #DIRECT_MAX_LENGTH} tokens straight from the fused projection ({@link DirectAttention}),
 * longer ones on the tiled kernel. Training runs one row through {@link AttentionCore}, which
 * applies dropout to the probabilities. Thread-safe: weights only; records and scratch come from
 * the caller.
 */
final class BertSelfAttention {

    /**
     * Longest sequence whose inference attention runs on {@link DirectAttention} rather than the
     * tiled {@link FlashAttention}: the direct path took 0.17–0.27× the tiled kernel's time at
     * L = 24–90 (MiniLM's 12 heads of 32), 1.6× at L = 256 (EncoderParts, CPU time per call).
     */
    static final int DIRECT_MAX_LENGTH = 128;

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final int width;
    private final int heads;
    private final float eps;
    private final float scale;
    private final FlashAttention kernel;
    private final float[] gamma;
    private final float[] beta;
    private final LinearWeight qkv;
    private final LinearWeight output;
    /** Training only (null otherwise): the transposes for the input gradients. */
    private final LinearWeight qkvTransposed;
    private final LinearWeight outputTransposed;
    /**
     * Training only: offsets in the flat gradient of query/key/value weight and bias, output
     * dense weight and bias, LayerNorm weight and bias (BertWeights' order).
     */
    private final int[] offsets;

    /**
     * @param offsets the ten tensors' offsets in the flat gradient (BertWeights order), or null
     *                for inference only
     */
    BertSelfAttention(BertConfig c, BertWeights.Layer w, FlashAttention kernel, int[] offsets) {
        int E = c.hidden();
        this.width = E;
        this.heads = c.heads();
        this.eps = c.layerNormEps();
        this.kernel = kernel;
        this.scale = kernel.spec().scaleFor(c.headDim());
        this.gamma = w.attentionNormWeight();
        this.beta = w.attentionNormBias();
        float[] fused = concat(w.queryWeight(), w.keyWeight(), w.valueWeight());
        this.qkv = LinearWeight.of(fused, 3 * E, E, concat(w.queryBias(), w.keyBias(), w.valueBias()));
        this.output = LinearWeight.of(w.attentionOutputWeight(), E, E, w.attentionOutputBias());
        this.offsets = offsets;
        if (offsets != null) {
            LinearKernel k = qkv.kernel();
            this.qkvTransposed = LinearWeight.transposeOf(k, fused, 3 * E, E);
            this.outputTransposed = LinearWeight.transposeOf(k, w.attentionOutputWeight(), E, E);
        } else {
            this.qkvTransposed = null;
            this.outputTransposed = null;
        }
    }

    /** Whether the fused projection computes each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return qkv.rowsIndependent();
    }

    /**
     * Inference over stacked sequences (sequence r: rows {@code [starts[r], starts[r+1])} of x,
     * M×E), x replaced by the block's output. Writes the heads' probabilities (H×L×L) of the only
     * sequence when {@code probs} is not null.
     */
    void forward(float[] x, int[] starts, int sequences, EncoderScratch s, float[] probs) {
        int M = starts[sequences];
        qkv.apply(x, M, s.qkv);
        for (int r = 0; r < sequences; r++) {
            attention(s, starts[r], starts[r + 1] - starts[r], probs);
        }
        output.apply(s.context, M, s.projected);
        MATH.layerNorm(x, s.projected, M, width, gamma, beta, eps);
    }

    /**
     * One sequence's attention, rows {@code [row0, row0 + L)} of {@code s.qkv} (3E wide) into the
     * same rows of {@code s.context} (E wide): up to {@link #DIRECT_MAX_LENGTH} tokens straight
     * from the fused projection, beyond it the tiled kernel on q, k and v split out.
     */
    private void attention(EncoderScratch s, int row0, int L, float[] probs) {
        int E = width, H = heads, d = E / H;
        if (L <= DIRECT_MAX_LENGTH) {
            DirectAttention.selfAttention(s.qkv, row0 * 3 * E, L, H, d, scale, s.context, row0 * E, probs, s.direct);
            return;
        }
        s.ensureSplit(L, E, H);
        for (int i = 0; i < L; i++) {
            int src = (row0 + i) * 3 * E, dst = i * E;
            System.arraycopy(s.qkv, src, s.q, dst, E);
            System.arraycopy(s.qkv, src + E, s.k, dst, E);
            System.arraycopy(s.qkv, src + 2 * E, s.v, dst, E);
        }
        AttentionShape shape = AttentionShape.self(L, H, d);
        kernel.forward(shape, s.q, s.k, s.v, RowMask.NONE, s.splitContext, probs != null ? s.lse : null,
            s.workspace);
        if (probs != null) {
            kernel.weights(shape, s.q, s.k, RowMask.NONE, s.lse, true, probs, s.workspace);
        }
        System.arraycopy(s.splitContext, 0, s.context, row0 * E, L * E);
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
        qkv.apply(x, L, rec.qkv);
        s.attention.forward(rec.qkv, L, H, E / H, scale, rec.context, rec.lse, probsMask);
        output.apply(rec.context, L, out);
        if (outMask != null) {
            outMask.apply(out, 0, L * E, 0);
        }
        LayerNorm.forward(out, x, L, E, gamma, beta, eps, rec.attentionNorm.xhat, rec.attentionNorm.rstd);
    }

    /**
     * Training backward of one row: parameter gradients added into {@code grad}.
     *
     * @param x    the forward's input
     * @param dOut L×E, the gradient of the output (read)
     * @param dx   L×E, written with the gradient of x, or null when nobody needs it
     */
    void backward(float[] x, int L, float[] dOut, float[] dx, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                  DropoutMask probsMask, DropoutMask outMask, float[] grad) {
        int E = width, H = heads, n = L * E;
        LayerNorm.backward(dOut, rec.attentionNorm.xhat, rec.attentionNorm.rstd, L, E, gamma, s.dz, grad,
            offsets[8], offsets[9]);
        System.arraycopy(s.dz, 0, s.dy, 0, n);
        if (outMask != null) {
            outMask.apply(s.dy, 0, n, 0);
        }
        s.weightGradient.accumulate(L, E, E, s.dy, rec.context, grad, offsets[6]);
        Projections.addBiasGradient(L, E, s.dy, 0, E, grad, offsets[7]);
        outputTransposed.apply(s.dy, L, s.dctx);
        s.attention.backward(rec.qkv, L, H, E / H, scale, rec.lse, s.dctx, s.dqkv, probsMask);
        for (int part = 0; part < 3; part++) {
            for (int i = 0; i < L; i++) {
                System.arraycopy(s.dqkv, i * 3 * E + part * E, s.split, i * E, E);
            }
            s.weightGradient.accumulate(L, E, E, s.split, x, grad, offsets[2 * part]);
            Projections.addBiasGradient(L, E, s.dqkv, part * E, 3 * E, grad, offsets[2 * part + 1]);
        }
        if (dx != null) {
            qkvTransposed.apply(s.dqkv, L, dx);
            for (int i = 0; i < n; i++) {
                dx[i] += s.dz[i];
            }
        }
    }

    static float[] concat(float[] a, float[] b, float[] c) {
        float[] out = new float[a.length + b.length + c.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        System.arraycopy(c, 0, out, a.length + b.length, c.length);
        return out;
    }
}
