package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

/**
 * Scaled dot-product attention of one sequence with optional weights: the kernel's forward pass,
 * then — only when asked — the weights recomputed tile by tile from the saved log-sum-exp.
 */
public final class Attention {

    /** Output of one sequence: L×(H·dv) values, and weights when requested (else null). */
    public static final class Output {
        private final float[] values;
        private final float[] weights;

        /** Wraps values and optional weights (no copy). */
        public Output(float[] values, float[] weights) {
            this.values = values;
            this.weights = weights;
        }

        /** L×(H·dv), row-major. */
        public float[] values() {
            return values;
        }

        /** L×S or H×L×S per {@link AttentionWeightsMode}, or null. */
        public float[] weights() {
            return weights;
        }
    }

    private Attention() {
    }

    /**
     * Attends one sequence.
     *
     * @param kernel the tiled kernel (its spec holds scale, causal, window, blocks)
     * @param shape  L, S, H, Hkv, d, dv
     * @param q      L×(H·d)
     * @param k      S×(Hkv·d)
     * @param v      S×(Hkv·dv)
     * @param mask   padding, boolean mask, bias
     * @param mode   which weights to return
     * @param ws     scratch of the calling thread
     */
    public static Output compute(FlashAttention kernel, AttentionShape shape, float[] q, float[] k, float[] v,
                                 RowMask mask, AttentionWeightsMode mode, Workspace ws) {
        return compute(kernel, shape, q, k, v, mask, mode, ws, new float[shape.outputSize()]);
    }

    /**
     * Attends one sequence into {@code out}, which the kernel overwrites whole (a caller may
     * reuse it from sequence to sequence); the result's values are {@code out}.
     *
     * @param out L×(H·dv), exactly {@code shape.outputSize()} values
     * @throws IllegalArgumentException when {@code out} does not have that length
     */
    public static Output compute(FlashAttention kernel, AttentionShape shape, float[] q, float[] k, float[] v,
                                 RowMask mask, AttentionWeightsMode mode, Workspace ws, float[] out) {
        return compute(kernel, shape, MatrixView.dense(q, shape.numHeads() * shape.headDim()),
            MatrixView.dense(k, shape.numKvHeads() * shape.headDim()),
            MatrixView.dense(v, shape.numKvHeads() * shape.valueDim()), mask, mode, ws, out);
    }

    /**
     * Attends one sequence read through views into {@code out}: Q, K and V in place, e.g. the
     * columns of one fused {@code [q | k | v]} projection ({@link PreparedSequence}).
     *
     * @param q   L rows of H·d
     * @param k   S rows of Hkv·d
     * @param v   S rows of Hkv·dv
     * @param out L×(H·dv), exactly {@code shape.outputSize()} values, overwritten whole
     * @throws IllegalArgumentException when {@code out} does not have that length
     */
    public static Output compute(FlashAttention kernel, AttentionShape shape, MatrixView q, MatrixView k,
                                 MatrixView v, RowMask mask, AttentionWeightsMode mode, Workspace ws, float[] out) {
        long weightsSize = mode.size(shape.numHeads(), shape.queryLength(), shape.keyLength());
        if (weightsSize > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("attention weights of " + shape + " (" + mode + ") do not fit one array");
        }
        if (out == null || out.length != shape.outputSize()) {
            throw new IllegalArgumentException("output of " + shape + " needs " + shape.outputSize() + " values, got "
                + (out == null ? "null" : out.length));
        }
        float[] lse = mode == AttentionWeightsMode.NONE ? null : new float[shape.numHeads() * shape.queryLength()];
        kernel.forward(shape, q, k, v, mask, MatrixView.dense(out, shape.numHeads() * shape.valueDim()), lse, 0, ws);
        float[] weights = null;
        if (mode != AttentionWeightsMode.NONE) {
            weights = new float[(int) weightsSize];
            kernel.weights(shape, q, k, mask, lse, 0, mode == AttentionWeightsMode.PER_HEAD, weights, ws);
        }
        return new Output(out, weights);
    }
}
