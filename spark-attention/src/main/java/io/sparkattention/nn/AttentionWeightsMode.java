package io.sparkattention.nn;

/**
 * Whether the attention weights (PyTorch's name for the attention probabilities softmax(QKᵀ/√d)) are
 * returned, and how. Not the layers' parameters.
 */
public enum AttentionWeightsMode {
    /** Output only (the fast path: no L×S array is ever made). */
    NONE,
    /** L×S weights averaged over heads (PyTorch's {@code average_attn_weights=True}). */
    AVERAGED,
    /** H×L×S weights, one slice per head. */
    PER_HEAD;

    /** Values in the weights array for {@code heads} heads, L queries and S keys (0 for {@link #NONE}). */
    public long size(int heads, int queryLength, int keyLength) {
        long plane = (long) queryLength * keyLength;
        return this == NONE ? 0 : this == AVERAGED ? plane : plane * heads;
    }
}
