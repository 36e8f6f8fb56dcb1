package io.sparkattention.bert;

import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.nn.SelfAttentionRecord;

/**
 * What the blocks' training forwards keep for their backwards, for one pass of M stacked tokens
 * ({@link RowStack}), and the backwards' shared scratch. Arrays are grown to the most tokens a pass
 * has held (bounded by the evaluator's tokens per pass, or one row's maxPositions), so the
 * activations are bounded whatever the run's length: per trainable layer
 * {@code (12E + F + H + 2)·M} floats (the attention layer's record, 9E + H of it, holds its
 * backward's scratch too; dropout on the probabilities adds nothing, its mask is regenerated);
 * shared by the layers, {@code (3E + 2F)·M}. Not thread-safe: one per evaluator.
 */
final class TrainingRecord {

    private TrainingRecord() {
    }

    /**
     * One layer: the attention block's fused projection, context, log-sum-exp and norm; its output
     * (the feed-forward's input); the feed-forward's pre-activation and norm. The attention's
     * values live in the shared layer's record, or (with dropout on the probabilities) in this
     * record's own arrays.
     */
    static final class Layer {
        /** The shared attention layer's record (qkv, context after the probabilities' dropout, lse). */
        final SelfAttentionRecord attention = new SelfAttentionRecord();
        final LayerNormRecord attentionNorm = new LayerNormRecord();
        /** M×E: the attention block's output, the feed-forward's input. */
        float[] mid = new float[0];
        /** M×F: the intermediate projection before GELU. */
        float[] pre = new float[0];
        final LayerNormRecord outputNorm = new LayerNormRecord();
        private int capacity;

        void ensure(int L, int E, int F) {
            if (L > capacity) {
                mid = new float[L * E];
                pre = new float[L * F];
                capacity = L;
            }
            attentionNorm.ensure(L, E);
            outputNorm.ensure(L, E);
        }
    }

    /** The backwards' scratch, shared by every layer of a pass. */
    static final class Scratch {
        /** M×E gradients: of a norm's input, of a projection's output, and a layer's output. */
        float[] dz = new float[0];
        float[] dy = new float[0];
        float[] tmp = new float[0];
        /** M×F: GELU's output (recomputed) and the gradient of the intermediate. */
        float[] act = new float[0];
        float[] dact = new float[0];
        final WeightGradient weightGradient = new WeightGradient();
        private int capacity;

        void ensure(int L, int E, int F) {
            if (L > capacity) {
                dz = new float[L * E];
                dy = new float[L * E];
                tmp = new float[L * E];
                act = new float[L * F];
                dact = new float[L * F];
                capacity = L;
            }
        }
    }
}
