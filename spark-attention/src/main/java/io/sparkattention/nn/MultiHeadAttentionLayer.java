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
public final class MultiHeadAttentionLayer implements SequenceAttention {

    private static final long serialVersionUID = 1L;

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

    @Override
    public FlashAttention kernel() {
        return kernel;
    }

    @Override
    public int outputWidth() {
        return weights.embedDim();
    }

    /**
     * Input projections: {@code q = x_q·W_qᵀ + b_q} (L×E), {@code k} and {@code v} (S×Ekv).
     *
     * @param query L×E row-major
     * @param key   S×kdim (the query itself for self-attention)
     * @param value S×vdim
     */
    @Override
    public PreparedSequence prepare(float[] query, int queryLength, float[] key, float[] value, int keyLength,
                                    RowMask mask) {
        int E = weights.embedDim();
        checkRows("query", query, queryLength, E);
        checkRows("key", key, keyLength, weights.kdim());
        checkRows("value", value, keyLength, weights.vdim());
        int kvDim = weights.numKvHeads() * weights.headDim();
        float[] q = Gemm.linear(query, queryLength, E, weights.qWeight(), E, weights.qBias());
        float[] k = Gemm.linear(key, keyLength, weights.kdim(), weights.kWeight(), kvDim, weights.kBias());
        float[] v = Gemm.linear(value, keyLength, weights.vdim(), weights.vWeight(), kvDim, weights.vBias());
        AttentionShape shape = new AttentionShape(queryLength, keyLength, weights.numHeads(), weights.numKvHeads(),
            weights.headDim(), weights.headDim());
        return new PreparedSequence(shape, q, k, v, mask);
    }

    /** Output projection: {@code y = a·W_oᵀ + b_o} (L×E). */
    @Override
    public float[] finish(float[] attended, int queryLength) {
        int E = weights.embedDim();
        return Gemm.linear(attended, queryLength, E, weights.outWeight(), E, weights.outBias());
    }

    /** {@link #forward(float[], int, float[], float[], int, RowMask, WeightsMode, Workspace)} with lengths from the widths. */
    public Attention.Output forward(float[] query, float[] key, float[] value, RowMask mask, WeightsMode mode,
                                    Workspace ws) {
        return forward(query, rows("query", query, weights.embedDim()), key, value, rows("key", key, weights.kdim()),
            mask, mode, ws);
    }

    private static void checkRows(String what, float[] x, int rows, int width) {
        Objects.requireNonNull(x, what);
        if ((long) rows * width != x.length) {
            throw new IllegalArgumentException(what + " has " + x.length + " values, expected " + rows + "×" + width);
        }
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
