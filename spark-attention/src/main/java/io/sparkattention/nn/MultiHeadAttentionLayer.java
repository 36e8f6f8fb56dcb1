package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.ProbabilityDropout;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.WeightGradient;
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
 * <p>Self-attention over stacked rows ({@link #selfForward}, {@link #selfBackward}): when the
 * three input projections share the input (kdim = vdim = E) one GEMM computes the fused
 * {@code [q | k | v]} (M×(E + 2·Ekv)) of every row at once; the kernel reads each sequence's q, k
 * and v in place (strided views), takes the direct or the tiled path by length
 * ({@link io.sparkattention.kernel.AttentionPath}), and writes the context into place; the
 * backward writes {@code [dq | dk | dv]} into one fused buffer, so the weight gradient and the
 * input gradient are one product each. This is the path of the attention classifier and the
 * encoder's self-attention.
 *
 * <p>Thread-safe: it holds only the immutable weights, kernel and prepared projections; scratch
 * comes from the caller ({@link SelfAttentionRecord}, {@link Workspace}).
 */
public final class MultiHeadAttentionLayer implements SequenceAttention {

    private static final long serialVersionUID = 1L;

    private final MultiHeadAttentionWeights weights;
    private final FlashAttention kernel;
    /** The projection kernel; null (the default, and after deserialization) for the JVM's. */
    private final transient LinearKernel linearKernel;
    /** The weights prepared for the projection kernel, built on first use. */
    private transient volatile LayerProjections projections;

    /**
     * @param weights projections (PyTorch layout)
     * @param kernel  the attention kernel; its spec carries scale, causal, window and blocks
     */
    public MultiHeadAttentionLayer(MultiHeadAttentionWeights weights, FlashAttention kernel) {
        this(weights, kernel, null);
    }

    /**
     * A layer whose projections run on {@code linearKernel} (null: the JVM's): side-by-side tests, a
     * decoder on a chosen kernel.
     */
    public MultiHeadAttentionLayer(MultiHeadAttentionWeights weights, FlashAttention kernel,
                                   LinearKernel linearKernel) {
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
     * Self-attention — query, key and value the same array of the same rows, on a
     * {@link #fusable()} layer — runs one GEMM into {@code [q | k | v]} (L×(E + 2·Ekv)), and the
     * prepared sequence's Q, K and V are views of its columns; otherwise three GEMMs, three arrays.
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
        LayerProjections p = projections();
        AttentionShape shape = new AttentionShape(queryLength, keyLength, weights.numHeads(), weights.numKvHeads(),
            weights.headDim(), weights.headDim());
        if (fusable() && key == query && value == query && keyLength == queryLength) {
            float[] qkv = p.qkv.apply(query, queryLength);
            int Ekv = weights.numKvHeads() * weights.headDim();
            return new PreparedSequence(shape, fused(qkv, 0, 0), fused(qkv, 0, E), fused(qkv, 0, E + Ekv), mask);
        }
        return new PreparedSequence(shape, p.q().apply(query, queryLength), p.k().apply(key, keyLength),
            p.v().apply(value, keyLength), mask);
    }

    /** Output projection: {@code y = a·W_oᵀ + b_o} (L×E). */
    @Override
    public float[] finish(float[] attended, int queryLength) {
        return projections().out.apply(attended, queryLength);
    }

    /** {@link #finish} into the caller's buffer: its first {@code queryLength} rows are written. */
    void finish(float[] attended, int queryLength, float[] y) {
        projections().out.apply(attended, queryLength, y);
    }

    /** True when the input projections share the input width (kdim = vdim = E): one fused GEMM for the three. */
    public boolean fusable() {
        return weights.kdim() == weights.embedDim() && weights.vdim() == weights.embedDim();
    }

    /** Values per row of the fused projection: E + 2·Ekv. */
    public int fusedWidth() {
        return weights.embedDim() + 2 * weights.numKvHeads() * weights.headDim();
    }

    /**
     * Self-attention of sequences stacked in {@code x}: sequence r is rows
     * {@code [starts[r], starts[r+1])} and attends over its own rows only (the kernel's spec:
     * scale, causal, window; no other mask).
     * <pre>
     *   qkv = x·[Wq; Wk; Wv]ᵀ + [bq; bk; bv]             M × (E + 2·Ekv), one GEMM   kept in rec
     *   ctx_r = attention(q_r, k_r, v_r) per sequence    M × E, in place            kept, with lse (H×L per sequence)
     *   y = ctx·Woᵀ + bo                                 M × E
     * </pre>
     * Each row's result depends on its own sequence alone (bit for bit when the projection kernel
     * computes rows independently, {@link LinearWeight#rowsIndependent()}).
     *
     * @param x      M×E row-major, M = {@code starts[count]}
     * @param starts count + 1 row offsets, {@code starts[0] = 0}, non-decreasing
     * @param rec    this thread's record, kept for {@link #selfBackward}
     * @param y      at least M×E, its first M rows written; not x
     * @param probs  null, or (one sequence only) its per-head attention probabilities H×L×L, written
     * @throws IllegalArgumentException when the layer is not {@link #fusable()} or an argument does not fit
     */
    public void selfForward(float[] x, int[] starts, int count, SelfAttentionRecord rec, float[] y, float[] probs) {
        selfForward(x, starts, count, rec, y, probs, null);
    }

    /**
     * {@link #selfForward(float[], int[], int, SelfAttentionRecord, float[], float[])} in training,
     * with dropout on the attention probabilities: sequence r's ctx is {@code (P∘M_r)·v}, M_r from
     * {@code dropout[r]} (the kernel's {@link ProbabilityDropout}, keyed by the row); null, or a
     * null entry, for none. {@code probs} stays the undropped softmax. {@link #selfBackward} must
     * be given the same dropout.
     */
    public void selfForward(float[] x, int[] starts, int count, SelfAttentionRecord rec, float[] y, float[] probs,
                            ProbabilityDropout[] dropout) {
        int M = checkStacked(x, starts, count, rec);
        checkDropout(dropout, count);
        int E = weights.embedDim(), F = fusedWidth(), H = weights.numHeads();
        checkRows("output", y, M, E, true);
        if (probs != null) {
            int L = M;
            if (count != 1 || probs.length != (long) H * L * L) {
                throw new IllegalArgumentException("probabilities are written for one sequence of H×L×L = " + H + "×"
                    + L + "×" + L + " values, got " + count + " sequences and " + probs.length + " values");
            }
        }
        rec.ensure(M, E, F, H);
        projections().qkv.apply(x, M, rec.qkv);
        for (int r = 0; r < count; r++) {
            int s = starts[r], L = starts[r + 1] - s;
            AttentionShape shape = selfShape(L);
            kernel.forward(shape, fused(rec.qkv, s, 0), fused(rec.qkv, s, E),
                fused(rec.qkv, s, E + weights.numKvHeads() * weights.headDim()), RowMask.NONE,
                new MatrixView(rec.context, s * E, E), rec.lse, H * s, dropout == null ? null : dropout[r],
                rec.workspace);
            if (probs != null) {
                kernel.weights(shape, fused(rec.qkv, s, 0), fused(rec.qkv, s, E), RowMask.NONE, rec.lse, H * s, true,
                    probs, rec.workspace);
            }
        }
        projections().out.apply(rec.context, M, y);
    }

    /**
     * The gradients of the last {@link #selfForward} on {@code rec}: parameter gradients added
     * into {@code grad} at {@code slots}, and the input's gradient written into {@code dx}.
     * <pre>
     *   dWo += dyᵀ·ctx,  dbo += Σ dy,  dctx = dy·Wo
     *   [dq | dk | dv]_r = attention'(dctx_r) per sequence, from the kept lse   M × (E + 2·Ekv), in place
     *   d[Wq; Wk; Wv] += dqkvᵀ·x (one product when the slots are one block),  db += Σ dqkv
     *   dx = dqkv·[Wq; Wk; Wv]
     * </pre>
     *
     * @param x     the forward's input
     * @param dy    M×E, the gradient of the forward's output
     * @param dx    at least M×E, its first M rows written; or null when nobody needs it
     * @param grad  the flat gradient, added to
     * @param slots where each tensor's gradient goes in {@code grad}
     */
    public void selfBackward(float[] x, int[] starts, int count, SelfAttentionRecord rec, float[] dy, float[] dx,
                             float[] grad, GradientSlots slots) {
        selfBackward(x, starts, count, rec, dy, dx, grad, slots, null);
    }

    /**
     * {@link #selfBackward(float[], int[], int, SelfAttentionRecord, float[], float[], float[], GradientSlots)}
     * of a forward with {@code dropout}: its factors are regenerated, never stored.
     */
    public void selfBackward(float[] x, int[] starts, int count, SelfAttentionRecord rec, float[] dy, float[] dx,
                             float[] grad, GradientSlots slots, ProbabilityDropout[] dropout) {
        int M = checkStacked(x, starts, count, rec);
        checkDropout(dropout, count);
        int E = weights.embedDim(), F = fusedWidth(), H = weights.numHeads();
        int Ekv = weights.numKvHeads() * weights.headDim();
        checkRows("output gradient", dy, M, E, true);
        if (dx != null) {
            checkRows("input gradient", dx, M, E, true);
        }
        Objects.requireNonNull(grad, "grad");
        Objects.requireNonNull(slots, "slots");
        rec.ensureBackward(M, E, F);
        LayerProjections p = projections();
        WeightGradient wg = rec.weightGradient(p.kernel);
        wg.accumulate(M, E, E, dy, rec.context, grad, slots.outWeight());
        addBiasGradient(dy, M, 0, E, E, grad, slots.outBias());
        p.outTransposed().apply(dy, M, rec.dContext);
        for (int r = 0; r < count; r++) {
            int s = starts[r];
            kernel.backward(selfShape(starts[r + 1] - s), fused(rec.qkv, s, 0), fused(rec.qkv, s, E),
                fused(rec.qkv, s, E + Ekv), RowMask.NONE, new MatrixView(rec.context, s * E, E), rec.lse, H * s,
                new MatrixView(rec.dContext, s * E, E), fused(rec.dqkv, s, 0), fused(rec.dqkv, s, E),
                fused(rec.dqkv, s, E + Ekv), null, dropout == null ? null : dropout[r], rec.workspace);
        }
        if (slots.kWeight() == slots.qWeight() + E * E && slots.vWeight() == slots.kWeight() + Ekv * E) {
            wg.accumulate(M, E, F, rec.dqkv, x, grad, slots.qWeight());
        } else {
            // Apart in the vector (BERT interleaves each weight with its bias): each block of
            // columns of dqkv is read in place.
            wg.accumulate(M, E, E, rec.dqkv, 0, F, x, grad, slots.qWeight());
            wg.accumulate(M, E, Ekv, rec.dqkv, E, F, x, grad, slots.kWeight());
            wg.accumulate(M, E, Ekv, rec.dqkv, E + Ekv, F, x, grad, slots.vWeight());
        }
        addBiasGradient(rec.dqkv, M, 0, E, F, grad, slots.qBias());
        addBiasGradient(rec.dqkv, M, E, Ekv, F, grad, slots.kBias());
        addBiasGradient(rec.dqkv, M, E + Ekv, Ekv, F, grad, slots.vBias());
        if (dx != null) {
            p.qkvTransposed().apply(rec.dqkv, M, dx);
        }
    }

    /**
     * Causal self-attention of each sequence's new rows over its {@link KeyValueCache} (decoding):
     * sequence r's rows {@code [starts[r], starts[r+1])} of x are its next tokens; their keys and
     * values are appended to {@code caches[r]} and their queries attend over the whole cache
     * ({@link CachedSelfAttention}). One GEMM projects every sequence's new rows; a prompt is one
     * call of all its rows, a generation step one row per sequence. The kernel's spec must be causal
     * with the diagonal {@link io.sparkattention.kernel.CausalAlignment#BOTTOM_RIGHT}.
     *
     * @param x      M×E, M = {@code starts[count]}
     * @param caches count caches, each with room for its sequence's new rows
     * @param y      at least M×E, its first M rows written; not x
     * @throws IllegalArgumentException when the spec is not causal bottom-right, the layer not
     *                                  {@link #fusable()}, a cache too small or of another width
     */
    public void cachedForward(float[] x, int[] starts, int count, KeyValueCache[] caches, SelfAttentionRecord rec,
                              float[] y) {
        if (!kernel.spec().causal() || kernel.spec().alignment() != CausalAlignment.BOTTOM_RIGHT) {
            throw new IllegalArgumentException("a cached forward needs a causal kernel aligned bottom-right, got "
                + (kernel.spec().causal() ? "causal " + kernel.spec().alignment() : "a non-causal one"));
        }
        int M = checkStacked(x, starts, count, rec);
        checkRows("output", y, M, weights.embedDim(), true);
        Objects.requireNonNull(caches, "caches");
        int kvWidth = weights.numKvHeads() * weights.headDim();
        for (int r = 0; r < count; r++) {
            KeyValueCache c = Objects.requireNonNull(caches[r], "cache of sequence " + r);
            if (c.width != kvWidth || c.length + starts[r + 1] - starts[r] > c.capacity) {
                throw new IllegalArgumentException("cache of sequence " + r + " (" + c.length + " of " + c.capacity
                    + " tokens, width " + c.width + ") cannot take " + (starts[r + 1] - starts[r])
                    + " more of width " + kvWidth);
            }
        }
        CachedSelfAttention.forward(weights, projections(), kernel, x, starts, count, caches, rec, y);
    }

    private AttentionShape selfShape(int L) {
        return new AttentionShape(L, L, weights.numHeads(), weights.numKvHeads(), weights.headDim(),
            weights.headDim());
    }

    /** Columns from {@code col} of the fused buffer's rows from {@code row0}. */
    private MatrixView fused(float[] buffer, int row0, int col) {
        int F = fusedWidth();
        return new MatrixView(buffer, row0 * F + col, F);
    }

    /** {@code g[off + c] += Σ_i dy[i·ld + col + c]} for c &lt; n; nothing when off &lt; 0 (no bias). */
    private static void addBiasGradient(float[] dy, int rows, int col, int n, int ld, float[] g, int off) {
        if (off < 0) {
            return;
        }
        for (int i = 0; i < rows; i++) {
            for (int c = 0, a = i * ld + col; c < n; c++) {
                g[off + c] += dy[a + c];
            }
        }
    }

    /** Dropout per sequence: null, or one (possibly null) per sequence. */
    private static void checkDropout(ProbabilityDropout[] dropout, int count) {
        if (dropout != null && dropout.length < count) {
            throw new IllegalArgumentException("dropout has " + dropout.length + " entries for " + count
                + " sequences");
        }
    }

    /** Checks a stacked call's arguments; returns M. */
    private int checkStacked(float[] x, int[] starts, int count, SelfAttentionRecord rec) {
        if (!fusable()) {
            throw new IllegalArgumentException("self-attention needs kdim = vdim = embedDim, got kdim "
                + weights.kdim() + ", vdim " + weights.vdim() + ", embedDim " + weights.embedDim());
        }
        Objects.requireNonNull(starts, "starts");
        Objects.requireNonNull(rec, "record");
        if (count < 0 || starts.length < count + 1 || starts[0] != 0) {
            throw new IllegalArgumentException("starts needs count + 1 = " + (count + 1L)
                + " offsets from 0, got " + starts.length + (starts.length > 0 ? " from " + starts[0] : ""));
        }
        for (int r = 0; r < count; r++) {
            if (starts[r + 1] < starts[r]) {
                throw new IllegalArgumentException("sequence " + r + " ends at row " + starts[r + 1]
                    + " before it starts at " + starts[r]);
            }
        }
        int M = starts[count];
        checkRows("input", x, M, weights.embedDim(), true);
        return M;
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
    private LayerProjections projections() {
        LayerProjections p = projections;
        if (p == null) {
            p = new LayerProjections(weights, linearKernel());
            projections = p;
        }
        return p;
    }

    private static void checkRows(String what, float[] x, int rows, int width) {
        checkRows(what, x, rows, width, false);
    }

    /** x holds rows×width values (at least, when {@code atLeast}). */
    private static void checkRows(String what, float[] x, int rows, int width, boolean atLeast) {
        Objects.requireNonNull(x, what);
        long n = (long) rows * width;
        if (atLeast ? x.length < n : x.length != n) {
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
