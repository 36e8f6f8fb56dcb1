package io.sparkattention.bert;

import io.sparkattention.nn.SelfAttentionRecord;

/**
 * One thread's inference buffers for up to {@link #capacity} stacked tokens: the attention
 * layer's record (fused projection, context, log-sum-exp), an output projection before its
 * residual, and the feed-forward's intermediate activations. Not thread-safe.
 */
final class EncoderScratch {
    int capacity;
    /** The self-attention's kept values (M×3E, M×E, H·M), reused layer after layer. */
    final SelfAttentionRecord attention = new SelfAttentionRecord();
    /** M×E: an output projection before its residual. */
    float[] projected = new float[0];
    /** M×F: the feed-forward's intermediate activations. */
    float[] hidden = new float[0];
    int width;
    int ffn;

    void ensure(int M, int E, int F) {
        boolean sameModel = E == width && F == ffn;
        if (!sameModel || M > capacity) {
            int n = sameModel ? Math.max(M, capacity) : M;
            projected = new float[n * E];
            hidden = new float[n * F];
            capacity = n;
            width = E;
            ffn = F;
        }
    }
}
