package io.sparkattention.gpt;

import io.sparkattention.bert.LayerNormRecord;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.nn.SelfAttentionRecord;

/**
 * What the decoder's training forward keeps of M stacked tokens for its backward, and the
 * backward's shared scratch; arrays grown to the most tokens seen and reused. Nothing is L×L: the
 * attention keeps its fused projection, context and log-sum-exp (the kernel regenerates the
 * probabilities in its backward, in its scratch: a head's whole P for blocks up to
 * {@link io.sparkattention.kernel.AttentionPath#CAUSAL_DIRECT_MAX_LENGTH} tokens, tile by tile
 * beyond; and a dropout mask from its key), so a block's memory grows linearly with its length.
 * Per layer {@code (12E + 2F + H + 2)·M} floats (the attention layer's record, 8E + H of it, holds
 * its backward's scratch too; c_fc's output both before and after gelu_new, so that the backward
 * does not recompute the activation) and its attention gradient (4E² + 4E); shared by the layers
 * {@code (3E + F)·M}, and the head's
 * {@value GptLmHead#HEAD_ROWS}×V logits. Not thread-safe: one per evaluator.
 */
final class GptTrainingRecord {

    private GptTrainingRecord() {
    }

    /**
     * One block: ln_1's output (the attention's input), the attention layer's record, ln_2's output
     * (c_fc's input), c_fc's output before the activation, both norms' statistics; and the
     * attention's parameter gradients in {@code nn.Linear}'s layout
     * ({@link GptTrainingBlock#attentionGradientSize}), folded into the flat Conv1D layout at a flush.
     */
    static final class Layer {
        final SelfAttentionRecord attention = new SelfAttentionRecord();
        final LayerNormRecord norm1 = new LayerNormRecord();
        final LayerNormRecord norm2 = new LayerNormRecord();
        /** M×E: LN(x; ln_1). */
        float[] normed1 = new float[0];
        /** M×E: LN(x; ln_2). */
        float[] normed2 = new float[0];
        /** M×F: c_fc's output, before gelu_new. */
        float[] pre = new float[0];
        /** M×F: gelu_new(pre), c_proj's input. */
        float[] act = new float[0];
        /** The attention's pending parameter gradients, Linear layout. */
        final float[] attentionGradient;
        private int capacity;

        Layer(int attentionGradientSize) {
            this.attentionGradient = new float[attentionGradientSize];
        }

        void ensure(int M, int E, int F) {
            if (M > capacity) {
                normed1 = new float[M * E];
                normed2 = new float[M * E];
                pre = new float[M * F];
                act = new float[M * F];
                capacity = M;
            }
            norm1.ensure(M, E);
            norm2.ensure(M, E);
        }
    }

    /** The passes' shared buffers. */
    static final class Scratch {
        /** M×E: the residual stream (forward), its gradient (backward). */
        float[] x = new float[0];
        /** M×E: an output projection before its residual (forward), a gradient (backward). */
        float[] projected = new float[0];
        /** M×E: a LayerNorm input's gradient (backward). */
        float[] dNormed = new float[0];
        /** M×F: the activations' gradient (backward). */
        float[] dAct = new float[0];
        /** The weight-gradient products, on the projections' kernel. */
        final WeightGradient weightGradient;
        private int capacity;

        Scratch(WeightGradient weightGradient) {
            this.weightGradient = weightGradient;
        }

        void ensure(int M, int E, int F) {
            if (M > capacity) {
                x = new float[M * E];
                projected = new float[M * E];
                dNormed = new float[M * E];
                dAct = new float[M * F];
                capacity = M;
            }
        }
    }
}
