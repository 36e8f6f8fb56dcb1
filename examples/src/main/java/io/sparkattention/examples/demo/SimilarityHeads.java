package io.sparkattention.examples.demo;

import io.sparkattention.nn.MultiHeadAttentionWeights;

/**
 * The demo's attention weights, in PyTorch's {@code nn.MultiheadAttention} layout: identity
 * projections and zero biases, so head h scores query token i against key token j by the dot
 * product of dimensions {@code [h·d, (h+1)·d)} of their (word + position) vectors. With no model
 * to train, that makes every head an interpretable similarity measure over a different slice of
 * meaning and position, and it exercises exactly the path a PyTorch export takes (a safetensors
 * state_dict loaded by {@code MultiHeadAttention.setInitialWeightsPath}).
 */
final class SimilarityHeads {

    private SimilarityHeads() {
    }

    static MultiHeadAttentionWeights of(int embedDim, int numHeads) {
        float[] zero = new float[embedDim];
        return MultiHeadAttentionWeights.of(embedDim, numHeads, embedDim, embedDim,
            identity(embedDim), identity(embedDim), identity(embedDim), zero, zero, zero, identity(embedDim), zero);
    }

    private static float[] identity(int n) {
        float[] m = new float[n * n];
        for (int i = 0; i < n; i++) {
            m[i * n + i] = 1f;
        }
        return m;
    }
}
