package io.sparkattention.bert;

import io.sparkattention.kernel.DirectAttention;
import io.sparkattention.kernel.Workspace;

/**
 * One thread's inference buffers: the projections' outputs and the context for up to
 * {@link #capacity} stacked tokens; for the tiled kernel, one sequence's q, k, v, context and
 * log-sum-exp exactly L rows long (it takes whole arrays). Not thread-safe.
 */
final class EncoderScratch {
    int capacity;
    int splitLength = -1;
    /** M×3E: the fused projection {@code [q | k | v]}. */
    float[] qkv = new float[0];
    float[] q = new float[0];
    float[] k = new float[0];
    float[] v = new float[0];
    /** M×E: the heads' outputs side by side. */
    float[] context = new float[0];
    float[] splitContext = new float[0];
    /** M×E: an output projection before its residual. */
    float[] projected = new float[0];
    /** M×F: the feed-forward's intermediate activations. */
    float[] hidden = new float[0];
    float[] lse = new float[0];
    final Workspace workspace = new Workspace();
    final DirectAttention.Workspace direct = new DirectAttention.Workspace();
    int width;
    int ffn;
    int heads;

    void ensure(int L, int E, int F, int H) {
        boolean sameModel = E == width && F == ffn && H == heads;
        if (!sameModel || L > capacity) {
            int n = sameModel ? Math.max(L, capacity) : L;
            qkv = new float[n * 3 * E];
            context = new float[n * E];
            projected = new float[n * E];
            hidden = new float[n * F];
            capacity = n;
            width = E;
            ffn = F;
            heads = H;
            splitLength = -1;
        }
    }

    void ensureSplit(int L, int E, int H) {
        if (L != splitLength) {
            q = new float[L * E];
            k = new float[L * E];
            v = new float[L * E];
            splitContext = new float[L * E];
            lse = new float[L * H];
            splitLength = L;
        }
    }
}
