package io.sparkattention.bert;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

/**
 * Hugging Face's {@code BertIntermediate} + {@code BertOutput}: intermediate projection with
 * exact-erf GELU, output projection, dropout, residual and LayerNorm.
 * <pre>
 *   forward:   h   = x·Wiᵀ + bi                   M×F (bias in the GEMM)   keeps h (pre-activation)
 *              a   = gelu(h)                      one pass over h
 *              out = LN(x + dropout(a·Woᵀ + bo))  residual + LN, one pass  keeps x̂, rstd
 *   backward:  dz = LN'(dout) (dγ, dβ);  dx = dz;  dy = dz∘M
 *              a = gelu(h) recomputed;  dWo += dyᵀ·a,  dbo += Σ dy,  da = dy·Wo
 *              dh = da∘gelu'(h);  dWi += dhᵀ·x,  dbi += Σ dh,  dx += dh·Wi
 * </pre>
 * Every pass runs over M stacked rows (row-wise but for the weight gradients' sums over rows).
 * Thread-safe: weights only; records and scratch come from the caller.
 */
final class BertFeedForward {

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final int width;
    private final int ffn;
    private final float eps;
    private final float[] gamma;
    private final float[] beta;
    private final LinearWeight intermediate;
    private final LinearWeight output;
    private final LinearWeight intermediateTransposed;
    private final LinearWeight outputTransposed;
    /** Training only: offsets of intermediate weight, bias, output weight, bias, LN weight, bias. */
    private final int[] offsets;

    /**
     * @param offsets the six tensors' offsets in the flat gradient (BertWeights order), or null
     *                for inference only
     */
    BertFeedForward(BertConfig c, BertWeights.Layer w, int[] offsets) {
        int E = c.hidden(), F = c.intermediate();
        this.width = E;
        this.ffn = F;
        this.eps = c.layerNormEps();
        this.gamma = w.outputNormWeight();
        this.beta = w.outputNormBias();
        this.intermediate = LinearWeight.of(w.intermediateWeight(), F, E, w.intermediateBias());
        this.output = LinearWeight.of(w.outputWeight(), E, F, w.outputBias());
        this.offsets = offsets;
        if (offsets != null) {
            LinearKernel k = intermediate.kernel();
            this.intermediateTransposed = LinearWeight.transposeOf(k, w.intermediateWeight(), F, E);
            this.outputTransposed = LinearWeight.transposeOf(k, w.outputWeight(), E, F);
        } else {
            this.intermediateTransposed = null;
            this.outputTransposed = null;
        }
    }

    /** Whether the projections compute each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return intermediate.rowsIndependent();
    }

    /** Inference over M stacked rows of x (M×E), replaced by the block's output. */
    void forward(float[] x, int M, EncoderScratch s) {
        intermediate.apply(x, M, s.hidden);
        MATH.gelu(s.hidden, M * ffn);
        output.apply(s.hidden, M, s.projected);
        MATH.layerNorm(x, s.projected, M, width, gamma, beta, eps);
    }

    /**
     * Training forward of stacked rows.
     *
     * @param x     M×E input (read)
     * @param out   M×E, written
     * @param index the layer's index, for its dropout site (each row's own mask)
     */
    void forward(float[] x, RowStack rows, float[] out, TrainingRecord.Layer rec, TrainingRecord.Scratch s,
                 int index) {
        int M = rows.tokens(), n = M * ffn;
        intermediate.apply(x, M, rec.pre);
        System.arraycopy(rec.pre, 0, s.act, 0, n);
        MATH.gelu(s.act, n);
        output.apply(s.act, M, out);
        rows.apply(DropoutMask.site(index, DropoutMask.FEED_FORWARD_OUTPUT), out, width);
        MATH.layerNorm(out, x, M, width, gamma, beta, eps, rec.outputNorm.xhat(), rec.outputNorm.rstd());
    }

    /**
     * Training backward of stacked rows: parameter gradients added into {@code grad}, each
     * product over all M rows.
     *
     * @param x    the forward's input
     * @param dOut M×E, the gradient of the output (read)
     * @param dx   M×E, written with the gradient of x
     */
    void backward(float[] x, RowStack rows, float[] dOut, float[] dx, TrainingRecord.Layer rec,
                  TrainingRecord.Scratch s, int index, float[] grad) {
        int E = width, F = ffn, M = rows.tokens(), n = M * E;
        MATH.layerNormBackward(dOut, rec.outputNorm.xhat(), rec.outputNorm.rstd(), M, E, gamma, s.dz, grad, offsets[4],
            offsets[5], rec.outputNorm.sums());
        System.arraycopy(s.dz, 0, s.dy, 0, n);
        rows.apply(DropoutMask.site(index, DropoutMask.FEED_FORWARD_OUTPUT), s.dy, E);
        System.arraycopy(rec.pre, 0, s.act, 0, M * F);
        MATH.gelu(s.act, M * F);
        s.weightGradient.accumulate(M, F, E, s.dy, s.act, grad, offsets[2]);
        Projections.addBiasGradient(M, E, s.dy, 0, E, grad, offsets[3]);
        outputTransposed.apply(s.dy, M, s.dact);
        MATH.geluBackward(rec.pre, s.dact, s.dact, M * F);
        s.weightGradient.accumulate(M, E, F, s.dact, x, grad, offsets[0]);
        Projections.addBiasGradient(M, F, s.dact, 0, F, grad, offsets[1]);
        intermediateTransposed.apply(s.dact, M, dx);
        for (int i = 0; i < n; i++) {
            dx[i] += s.dz[i];
        }
    }
}
