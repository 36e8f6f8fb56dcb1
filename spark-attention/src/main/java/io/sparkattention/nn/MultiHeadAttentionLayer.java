package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.util.Objects;

/**
 * The forward pass of PyTorch's {@code nn.MultiheadAttention} ({@code batch_first}, eval mode)
 * for one sequence: input projections, the tiled attention kernel over PyTorch's head split
 * (projected columns {@code [h·hd, (h+1)·hd)} are head {@code h}), and the output projection.
 *
 * <p>The four projections run on the JVM's projection kernel ({@link LinearWeight}); the layer
 * prepares (packs) its weights for it once, on first use in each JVM, and reuses them for every
 * sequence. The prepared form is not serialized: a deserialized layer prepares its own. Training
 * runs its forward pass through this class too ({@link TrainableSelfAttention}), so a model's
 * attention gives the same bits in {@code fit}, {@code transform} and the attention stage.
 *
 * <p>Thread-safe: it holds only the immutable weights, kernel and prepared projections; scratch
 * comes from the caller.
 */
public final class MultiHeadAttentionLayer implements SequenceAttention {

    private static final long serialVersionUID = 1L;

    private final MultiHeadAttentionWeights weights;
    private final FlashAttention kernel;
    /** The projection kernel; null (the default, and after deserialization) for the JVM's. */
    private final transient LinearKernel linearKernel;
    /** The weights prepared for the projection kernel, built on first use. */
    private transient volatile Projections projections;

    /**
     * @param weights projections (PyTorch layout)
     * @param kernel  the attention kernel; its spec carries scale, causal, window and blocks
     */
    public MultiHeadAttentionLayer(MultiHeadAttentionWeights weights, FlashAttention kernel) {
        this(weights, kernel, null);
    }

    /** A layer whose projections run on {@code linearKernel} (null: the JVM's), for side-by-side tests. */
    MultiHeadAttentionLayer(MultiHeadAttentionWeights weights, FlashAttention kernel, LinearKernel linearKernel) {
        this.weights = Objects.requireNonNull(weights, "weights");
        this.kernel = Objects.requireNonNull(kernel, "kernel");
        this.linearKernel = linearKernel;
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
        Projections p = projections();
        float[] q = p.q.apply(query, queryLength);
        float[] k = p.k.apply(key, keyLength);
        float[] v = p.v.apply(value, keyLength);
        AttentionShape shape = new AttentionShape(queryLength, keyLength, weights.numHeads(), weights.numKvHeads(),
            weights.headDim(), weights.headDim());
        return new PreparedSequence(shape, q, k, v, mask);
    }

    /** Output projection: {@code y = a·W_oᵀ + b_o} (L×E). */
    @Override
    public float[] finish(float[] attended, int queryLength) {
        return projections().out.apply(attended, queryLength);
    }

    /**
     * Self-attention's input projections into the caller's buffers: {@code q, k, v = x·W_{q,k,v}ᵀ + b}
     * (n×E each; E = kdim = vdim). The first n rows of x are read and of q, k, v written.
     */
    void projectSelf(float[] x, int n, float[] q, float[] k, float[] v) {
        Projections p = projections();
        p.q.apply(x, n, q);
        p.k.apply(x, n, k);
        p.v.apply(x, n, v);
    }

    /** {@link #finish} into the caller's buffer: its first {@code queryLength} rows are written. */
    void finish(float[] attended, int queryLength, float[] y) {
        projections().out.apply(attended, queryLength, y);
    }

    /** The kernel the projections run on. */
    LinearKernel linearKernel() {
        return linearKernel != null ? linearKernel : LinearKernel.get();
    }

    /** {@link #forward(float[], int, float[], float[], int, RowMask, AttentionWeightsMode, Workspace)} with lengths from the widths. */
    public Attention.Output forward(float[] query, float[] key, float[] value, RowMask mask, AttentionWeightsMode mode,
                                    Workspace ws) {
        return forward(query, rows("query", query, weights.embedDim()), key, value, rows("key", key, weights.kdim()),
            mask, mode, ws);
    }

    /**
     * The prepared projections. Threads that start together may each prepare them once; they get
     * equal values, and the last one written is kept.
     */
    private Projections projections() {
        Projections p = projections;
        if (p == null) {
            p = new Projections(weights, linearKernel());
            projections = p;
        }
        return p;
    }

    /** The four projections, each weight prepared once ({@link LinearWeight#of}). */
    private static final class Projections {
        final LinearWeight q;
        final LinearWeight k;
        final LinearWeight v;
        final LinearWeight out;

        Projections(MultiHeadAttentionWeights w, LinearKernel kernel) {
            int E = w.embedDim();
            int kvDim = w.numKvHeads() * w.headDim();
            q = LinearWeight.of(kernel, w.qWeight(), E, E, w.qBias());
            k = LinearWeight.of(kernel, w.kWeight(), kvDim, w.kdim(), w.kBias());
            v = LinearWeight.of(kernel, w.vWeight(), kvDim, w.vdim(), w.vBias());
            out = LinearWeight.of(kernel, w.outWeight(), E, E, w.outBias());
        }
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
