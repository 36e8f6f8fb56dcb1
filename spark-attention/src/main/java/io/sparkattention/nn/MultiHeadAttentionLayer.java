package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.Gemm;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.util.Objects;

/**
 * The forward pass of PyTorch's {@code nn.MultiheadAttention} ({@code batch_first}, eval mode)
 * for one sequence: input projections, the tiled attention kernel over PyTorch's head split
 * (projected columns {@code [h·hd, (h+1)·hd)} are head {@code h}), and the output projection.
 *
 * <p>Thread-safe: it holds only the immutable weights and kernel; scratch comes from the caller.
 */
public final class MultiHeadAttentionLayer {

    private final MultiHeadAttentionWeights weights;
    private final FlashAttention kernel;

    /**
     * @param weights projections (PyTorch layout)
     * @param kernel  the attention kernel; its spec carries scale, causal, window and blocks
     */
    public MultiHeadAttentionLayer(MultiHeadAttentionWeights weights, FlashAttention kernel) {
        this.weights = Objects.requireNonNull(weights, "weights");
        this.kernel = Objects.requireNonNull(kernel, "kernel");
    }

    public MultiHeadAttentionWeights weights() {
        return weights;
    }

    public FlashAttention kernel() {
        return kernel;
    }

    /**
     * Attends one sequence.
     *
     * @param query L×E row-major
     * @param key   S×kdim (the query itself for self-attention)
     * @param value S×vdim
     * @param mask  key padding, boolean mask (true = may attend), bias L×S or H×L×S
     * @param mode  which attention weights to return
     * @param ws    scratch of the calling thread
     * @return L×E output and the requested weights
     */
    public Attention.Output forward(float[] query, float[] key, float[] value, RowMask mask, WeightsMode mode,
                                    Workspace ws) {
        int E = weights.embedDim();
        int L = rows("query", query, E);
        int S = rows("key", key, weights.kdim());
        if (rows("value", value, weights.vdim()) != S) {
            throw new IllegalArgumentException("key has " + S + " rows but value has " + value.length / weights.vdim());
        }
        int kvDim = weights.numKvHeads() * weights.headDim();
        // (1) projections: q = x_q·W_qᵀ + b_q (L×E), k (S×Ekv), v (S×Ekv)
        float[] q = Gemm.linear(query, L, E, weights.qWeight(), E, weights.qBias());
        float[] k = Gemm.linear(key, S, weights.kdim(), weights.kWeight(), kvDim, weights.kBias());
        float[] v = Gemm.linear(value, S, weights.vdim(), weights.vWeight(), kvDim, weights.vBias());
        // (2) attention over heads
        AttentionShape shape = new AttentionShape(L, S, weights.numHeads(), weights.numKvHeads(),
            weights.headDim(), weights.headDim());
        Attention.Output attn = Attention.compute(kernel, shape, q, k, v, mask, mode, ws);
        // (3) output projection (L×E)
        float[] out = Gemm.linear(attn.values(), L, E, weights.outWeight(), E, weights.outBias());
        return new Attention.Output(out, attn.weights());
    }

    private static int rows(String what, float[] x, int width) {
        Objects.requireNonNull(x, what);
        if (x.length % width != 0) {
            throw new IllegalArgumentException(what + " has " + x.length + " values, not a multiple of its width "
                + width);
        }
        return x.length / width;
    }
}
