package io.sparkattention.gpt;

import io.sparkattention.nn.SelfAttentionRecord;

/**
 * One thread's decoder buffers for up to {@link #capacity} stacked tokens, grown to the most seen
 * and reused: the stacked states, a LayerNorm's output, an output projection before its residual,
 * the feed-forward's activations, the attention layer's record, and the head's input rows and
 * logits, the sampler's buffers. Not thread-safe.
 */
final class GptScratch {
    int capacity;
    int width;
    int inner;
    /** M×E: the stacked residual stream (the hidden states). */
    float[] x = new float[0];
    /** M×E: ln_1's or ln_2's output, the sub-block's input. */
    float[] normed = new float[0];
    /** M×E: an output projection before its residual. */
    float[] projected = new float[0];
    /** M×F: the feed-forward's activations. */
    float[] hidden = new float[0];
    /** The self-attention's fused projection, context and log-sum-exp. */
    final SelfAttentionRecord attention = new SelfAttentionRecord();
    /** Rows×E: the head's input rows, gathered. */
    float[] headInput = new float[0];
    /** Rows×V: the head's logits. */
    float[] logits = new float[0];
    /** The sampler's buffers. */
    final TokenSampler sampler = new TokenSampler();

    void ensure(int M, int E, int F) {
        boolean sameModel = E == width && F == inner;
        if (!sameModel || M > capacity) {
            int n = sameModel ? Math.max(M, capacity) : M;
            x = new float[n * E];
            normed = new float[n * E];
            projected = new float[n * E];
            hidden = new float[n * F];
            capacity = n;
            width = E;
            inner = F;
        }
    }

    /** The head's buffers for {@code rows} rows of E inputs and V logits. */
    void ensureHead(int rows, int E, int V) {
        if (headInput.length < rows * E) {
            headInput = new float[rows * E];
        }
        if (logits.length < (long) rows * V) {
            logits = new float[rows * V];
        }
    }
}
