package io.sparkattention.kernel;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ForkJoinPool;

/**
 * Tiled (FlashAttention-style) attention for one sequence, in float32: the public entry points.
 *
 * <p>For each block of Bq queries the keys are visited in blocks of Bk. A tile's scores
 * {@code S = scale·Qᵢ·Kⱼᵀ + bias} are masked in place, then folded into a running row max
 * {@code m}, a running sum {@code ℓ} and an unnormalised accumulator {@code O} that is rescaled by
 * {@code exp(m_old − m_new)} whenever the max grows (the online softmax). At the end
 * {@code O /= ℓ} and the log-sum-exp {@code m + log ℓ} is kept. Key blocks outside the causal /
 * window / padding band are never visited, so causal attention does about half the work. The
 * attention weights and the gradients ({@link #backward}) are recomputed from that log-sum-exp
 * over the same tiles.
 *
 * <p>Extra memory is one {@link Workspace}: {@link #scratchFloats} floats ({@link #backwardScratchFloats}
 * for the backward pass), whatever L and S; the parallel backward call adds the partial dQ of its
 * key chunks, never L·S ({@link #backwardPartialFloats}).
 * A query row that can see no key gets output 0 and log-sum-exp −∞ (never NaN), as PyTorch ≥ 2.5,
 * FlashAttention and ONNX do. NaN or ±∞ in the inputs propagate to the rows they touch.
 *
 * <p>Short rows take {@link DirectAttention} (and its whole-P backward) when the kernel's
 * {@link AttentionPath} says so: the same function, masks and log-sum-exp. Entry points on
 * {@link MatrixView}s read Q, K, V in place (a fused projection's columns) and write into place.
 *
 * <p>The public methods check every argument ({@link Checks}); the passes behind them do not.
 * Where things are: the blocks a call cuts in {@link BlockPolicy}, the tile iteration in
 * {@link TileWalk}, the passes in {@link ForwardPass}, {@link ProbabilitiesPass} and
 * {@link BackwardPass}, the masks in {@link Masking}, the parallel scheduler in
 * {@link ParallelUnits}.
 */
public final class FlashAttention implements Serializable {

    private static final long serialVersionUID = 1L;

    /** As given: blocks may be left to the tile implementation. */
    private final AttentionSpec spec;
    /** Not serialized: each JVM runs the tile implementation it chose for itself (see {@link #writeReplace}). */
    private final transient TileOps ops;
    /** The blocks in use. */
    private final transient BlockPolicy blocks;
    /** Direct or tiled by length: not serialized, each JVM runs its own choice. */
    private final transient AttentionPath path;
    /** The direct path's arithmetic: the JVM's, or a test's. */
    private final transient DirectAttention.Impl directImpl;
    private final transient TiledPasses tiled;

    /** A kernel with the JVM's chosen {@link TileOps} and {@link AttentionPath}. */
    public FlashAttention(AttentionSpec spec) {
        this(spec, TileOps.get(), AttentionPath.configured());
    }

    /** A tiled kernel with explicit tile arithmetic (tests run every implementation): always {@link AttentionPath#TILED}. */
    public FlashAttention(AttentionSpec spec, TileOps ops) {
        this(spec, ops, AttentionPath.TILED);
    }

    /** A kernel with explicit tile arithmetic and path. */
    public FlashAttention(AttentionSpec spec, TileOps ops, AttentionPath path) {
        this(spec, ops, path, DirectAttention.IMPL);
    }

    FlashAttention(AttentionSpec spec, TileOps ops, AttentionPath path, DirectAttention.Impl directImpl) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.ops = Objects.requireNonNull(ops, "ops");
        this.path = Objects.requireNonNull(path, "path");
        this.directImpl = Objects.requireNonNull(directImpl, "directImpl");
        this.blocks = new BlockPolicy(spec, ops);
        this.tiled = new TiledPasses(spec, ops, blocks);
    }

    /** This kernel on another path. */
    public FlashAttention withPath(AttentionPath newPath) {
        return new FlashAttention(spec, ops, newPath, directImpl);
    }

    /** This kernel with another direct arithmetic (tests run both). */
    FlashAttention withDirectArithmetic(DirectAttention.Impl impl) {
        return new FlashAttention(spec, ops, path, impl);
    }

    /** The direct/tiled rule in use. */
    public AttentionPath path() {
        return path;
    }

    /** True when calls on {@code shape} run {@link DirectAttention}. */
    public boolean direct(AttentionShape shape) {
        return path.direct(shape.queryLength(), shape.keyLength());
    }

    public AttentionSpec spec() {
        return spec;
    }

    /** The tile arithmetic in use. */
    public TileOps ops() {
        return ops;
    }

    /** Query rows per tile in use: the spec's, or the tile implementation's when the spec left it open. */
    public int queryBlock() {
        return blocks.queryBlock();
    }

    /** Keys per tile in use: the spec's, or the tile implementation's when the spec left it open. */
    public int keyBlock() {
        return blocks.keyBlock();
    }

    /**
     * Extra floats of one forward call's {@link Workspace}, whatever L and S: at most
     * {@link AttentionSpec#scratchFloats} of the blocks in use (a call with fewer queries than a
     * block, or whose block {@link #queryBlockFor} shrinks, needs less).
     */
    public long scratchFloats(int headDim, int valueDim) {
        return blocks.scratchFloats(headDim, valueDim);
    }

    /**
     * This kernel with its blocks fixed to those a call on {@code whole} uses ({@link #queryBlockFor}),
     * to compute a part of such a call (one head of a row) exactly as the call itself would: a
     * one-head call would otherwise shrink an automatic block further.
     */
    public FlashAttention withBlocksOf(AttentionShape whole) {
        return new FlashAttention(blocks.fixedFor(whole), ops, path, directImpl);
    }

    /**
     * Query rows per block for one call of {@link #forward}: the blocks in use, or, when the spec
     * left them to the tile implementation, halved while the call would have fewer than
     * {@value BlockPolicy#MIN_UNITS} (head, query block) units, down to
     * {@value BlockPolicy#MIN_AUTO_QUERY_BLOCK}. A function of the shape alone, so the sequential
     * and the parallel calls cut the same blocks.
     */
    public int queryBlockFor(AttentionShape shape) {
        return blocks.queryBlockFor(shape);
    }

    /** {@link #forward(AttentionShape, float[], float[], float[], RowMask, float[], float[], Workspace)} with fresh scratch. */
    public void forward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask, float[] out, float[] lse) {
        forward(shape, q, k, v, mask, out, lse, new Workspace());
    }

    /**
     * Multi-head attention of one sequence.
     *
     * @param shape L, S, H, Hkv, d, dv
     * @param q     L×(H·d) row-major
     * @param k     S×(Hkv·d)
     * @param v     S×(Hkv·dv)
     * @param mask  key padding, boolean mask, bias ({@link RowMask#NONE} for none)
     * @param out   L×(H·dv), written
     * @param lse   H×L log-sum-exp per head and query (natural log), written; may be null
     * @param ws    scratch, reused across calls of one thread
     */
    public void forward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                        float[] out, float[] lse, Workspace ws) {
        Checks.inputs(shape, q, k, v, mask);
        Checks.forwardOutputs(shape, out, lse);
        run(shape, shape.queries(q), shape.keys(k), shape.values(v), mask, shape.outputs(out), lse, 0, null, ws);
    }

    /**
     * Multi-head attention of one sequence on views: Q (L×H·d), K (S×Hkv·d), V (S×Hkv·dv) read in place; the
     * output (L×H·dv, not overlapping them) written into place; the H×L log-sum-exp from {@code lseOff}, or null.
     */
    public void forward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                        MatrixView out, float[] lse, int lseOff, Workspace ws) {
        forward(shape, q, k, v, mask, out, lse, lseOff, null, ws);
    }

    /**
     * The forward pass on views with {@code dropout} on P (null: none, the same bits): output
     * {@code (P∘M)·V}; the log-sum-exp, and so {@link #weights}, the undropped softmax's.
     */
    public void forward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                        MatrixView out, float[] lse, int lseOff, ProbabilityDropout dropout, Workspace ws) {
        Checks.forwardViews(shape, q, k, v, mask, out, lse, lseOff);
        Objects.requireNonNull(ws, "ws");
        run(shape, q, k, v, mask, out, lse, lseOff, dropout, ws);
    }

    private void run(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask, MatrixView out,
                     float[] lse, int lseOff, ProbabilityDropout dropout, Workspace ws) {
        if (direct(shape)) {
            DirectAttention.forward(directImpl, spec, shape, q, k, v, mask, out, lse, lseOff, null, false, dropout,
                ws.direct());
        } else {
            tiled.forward(shape, q, k, v, mask, out, lse, lseOff, dropout, ws);
        }
    }

    /**
     * The same as {@link #forward(AttentionShape, float[], float[], float[], RowMask, float[], float[], Workspace)},
     * with (head, query block) units (heads on the direct path) spread over {@code pool}'s threads,
     * largest first ({@link ParallelUnits}): disjoint parts of {@code out} and {@code lse}, each the
     * sequential call's arithmetic, so the result is bitwise that call's whatever the thread count.
     */
    public void forward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                        float[] out, float[] lse, ForkJoinPool pool) {
        Checks.inputs(shape, q, k, v, mask);
        Checks.forwardOutputs(shape, out, lse);
        Objects.requireNonNull(pool, "pool");
        MatrixView qv = shape.queries(q), kv = shape.keys(k), vv = shape.values(v), ov = shape.outputs(out);
        if (direct(shape)) {  // one unit per head
            ParallelUnits.run(pool, shape.numHeads(), ws -> { }, (h, ws) -> DirectAttention.heads(directImpl, spec,
                shape, qv, kv, vv, mask, ov, lse, 0, null, false, null, h, h + 1, ws.direct()));
        } else {
            tiled.forward(shape, qv, kv, vv, mask, ov, lse, pool);
        }
    }

    /**
     * One head's attention of a block of queries against a block of keys: a partial result that
     * {@link LseMerge} combines exactly with the partials of the sequence's other key blocks.
     *
     * @param rows    queries in the block
     * @param keys    keys in the block
     * @param q       rows×d, contiguous row-major
     * @param k       keys×d
     * @param v       keys×dv
     * @param pos     the block's place in its sequence (for causal, window, padding)
     * @param allowed rows×keys slice of the boolean mask (true = may attend), or null
     * @param bias    rows×keys slice of the additive bias, or null
     * @param out     rows×dv, written: normalised over this block's keys (0 where none is visible)
     * @param lse     rows, written: log-sum-exp over this block's keys (−∞ where none is visible)
     * @param ws      scratch
     */
    public void forwardBlock(int rows, int keys, int d, int dv, float[] q, float[] k, float[] v, BlockPosition pos,
                             boolean[] allowed, float[] bias, float[] out, float[] lse, Workspace ws) {
        Checks.block(rows, keys, d, dv, q, k, v, pos, allowed, bias, out, lse);
        KeyBand band = new KeyBand(spec, pos.totalQueries(), pos.totalKeys(), pos.validKeys());
        ws.ensure(Math.min(blocks.queryBlock(), rows), blocks.keyBlock(), d, dv);
        ForwardPass pass = new ForwardPass(ops, ws, band, spec.scaleFor(d), d, dv, pos.queryStart(), pos.keyStart(),
            new MatrixView(q, 0, d), new MatrixView(k, 0, d), new MatrixView(v, 0, dv),
            new MaskView(allowed, 0, keys), new MatrixView(bias, 0, keys), new MatrixView(out, 0, dv), lse, 0, null, 0);
        TileWalk.run(ops, band, blocks.queryBlock(), blocks.keyBlock(), rows, keys, pos.queryStart(), pos.keyStart(),
            pass);
    }

    /**
     * Attention weights {@code exp(scale·q·kᵀ + bias + mask − lse)} from a forward pass's
     * log-sum-exp, head by head: averaged over heads into L×S, or per head into H×L×S. Masked
     * entries and fully masked rows are 0.
     *
     * @param lse     H×L, from {@link #forward}
     * @param perHead H×L×S output when true, L×S average when false
     * @param weights written
     */
    public void weights(AttentionShape shape, float[] q, float[] k, RowMask mask, float[] lse,
                        boolean perHead, float[] weights, Workspace ws) {
        Checks.scores(shape, q, k, mask);
        Checks.lseLength(shape, lse);
        weights(shape, shape.queries(q), shape.keys(k), mask, lse, 0, perHead, weights, ws);
    }

    /**
     * {@link #weights(AttentionShape, float[], float[], RowMask, float[], boolean, float[], Workspace)}
     * on views of Q (L rows of H·d) and K (S rows of Hkv·d), the log-sum-exp from {@code lseOff}.
     */
    public void weights(AttentionShape shape, MatrixView q, MatrixView k, RowMask mask, float[] lse, int lseOff,
                        boolean perHead, float[] weights, Workspace ws) {
        Checks.weightsViews(shape, q, k, mask, lse, lseOff, perHead, weights);
        Objects.requireNonNull(ws, "ws");
        if (direct(shape)) {
            DirectAttention.weights(directImpl, spec, shape, q, k, mask, lse, lseOff, perHead, weights,
                ws.direct());
        } else {
            tiled.weights(shape, q, k, mask, lse, lseOff, perHead, weights, ws);
        }
    }

    /**
     * Gradients of one sequence's attention (FlashAttention-2's backward pass, {@link BackwardPass}),
     * from the forward pass's output and log-sum-exp: P is recomputed tile by tile over the same
     * tiles as the forward (masked ones skipped), never materialised. Extra memory is one
     * {@link Workspace} of at most {@link #backwardScratchFloats} floats, whatever L and S. A fully
     * masked query row (lse = −∞) contributes nothing and gets dQ = 0, never NaN.
     *
     * <p>The work is cut into (key/value head, key chunk) units ({@link BackwardUnits}); on short
     * keys or many key/value heads a chunk is all the keys. A chunk's dK and dV rows and dBias
     * columns come from its own walk, and a query's dQ sums the chunks in ascending order.
     *
     * @param shape L, S, H, Hkv, d, dv
     * @param q     L×(H·d), as given to the forward
     * @param k     S×(Hkv·d)
     * @param v     S×(Hkv·dv)
     * @param mask  the forward's mask
     * @param out   L×(H·dv), the forward's output
     * @param lse   H×L, the forward's log-sum-exp
     * @param dOut  L×(H·dv), the gradient of the loss with respect to the output
     * @param dq    L×(H·d), written
     * @param dk    S×(Hkv·d), written: a grouped key/value head gets the sum over its query heads,
     *              in head order
     * @param dv    S×(Hkv·dv), written, summed like dk
     * @param dBias as long as {@code mask.bias()}, written: L×S summed over heads (in head order) or
     *              H×L×S per head; null to skip, and null when the mask has no bias
     * @param ws    scratch, reused across calls of one thread
     */
    public void backward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                         float[] out, float[] lse, float[] dOut,
                         float[] dq, float[] dk, float[] dv, float[] dBias, Workspace ws) {
        Checks.backward(shape, q, k, v, mask, out, lse, dOut, dq, dk, dv, dBias);
        Objects.requireNonNull(ws, "ws");
        runBackward(shape, shape.queries(q), shape.keys(k), shape.values(v), mask, shape.outputs(out), lse, 0,
            shape.outputs(dOut), shape.queries(dq), shape.keys(dk), shape.values(dv), dBias, null, ws);
    }

    /**
     * {@link #backward(AttentionShape, float[], float[], float[], RowMask, float[], float[], float[],
     * float[], float[], float[], float[], Workspace)} on views: Q, K, V, the output and dO read in
     * place, dQ, dK and dV written into place (they may be the columns of one fused
     * {@code [dq | dk | dv]} buffer, but not the arrays read), the log-sum-exp from {@code lseOff}.
     * Only the views' own columns are written.
     */
    public void backward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                         MatrixView out, float[] lse, int lseOff, MatrixView dOut,
                         MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias, Workspace ws) {
        backward(shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv, dBias, null, ws);
    }

    /** The backward of a forward with {@code dropout} (null: none), its factors regenerated, never stored. */
    public void backward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                         MatrixView out, float[] lse, int lseOff, MatrixView dOut, MatrixView dq, MatrixView dk,
                         MatrixView dv, float[] dBias, ProbabilityDropout dropout, Workspace ws) {
        Checks.backwardViews(shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv, dBias);
        Objects.requireNonNull(ws, "ws");
        runBackward(shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv, dBias, dropout, ws);
    }

    private void runBackward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                             MatrixView out, float[] lse, int lseOff, MatrixView dOut, MatrixView dq, MatrixView dk,
                             MatrixView dv, float[] dBias, ProbabilityDropout dropout, Workspace ws) {
        if (direct(shape)) {
            DirectBackward.run(directImpl, spec, shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv,
                dBias, dropout, ws.direct());
        } else {
            tiled.backwardUnits(shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv, dBias, dropout).run(ws);
        }
    }

    /**
     * The same as {@link #backward(AttentionShape, float[], float[], float[], RowMask, float[], float[], float[],
     * float[], float[], float[], float[], Workspace)}, with its (key/value head, key chunk) units
     * spread over {@code pool}'s threads: a unit owns its chunk's dK and dV rows and dBias columns,
     * and the chunks' partial dQ are added in ascending chunk order after the units finish, so the
     * result is bitwise identical to the sequential call whatever the thread count. A shared L×S
     * dBias sums all heads in head order: with it a unit is all heads × one chunk. Besides one
     * {@link Workspace} per thread, the partial dQ take at most {@link #backwardPartialFloats} floats.
     */
    public void backward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                         float[] out, float[] lse, float[] dOut,
                         float[] dq, float[] dk, float[] dv, float[] dBias, ForkJoinPool pool) {
        Checks.backward(shape, q, k, v, mask, out, lse, dOut, dq, dk, dv, dBias);
        Objects.requireNonNull(pool, "pool");
        if (direct(shape)) {  // one unit per group of heads that share their dK, dV and dBias
            DirectBackward.run(directImpl, spec, shape, shape.queries(q), shape.keys(k), shape.values(v), mask,
                shape.outputs(out), lse, shape.outputs(dOut), shape.queries(dq), shape.keys(dk), shape.values(dv),
                dBias, pool);
            return;
        }
        tiled.backwardUnits(shape, shape.queries(q), shape.keys(k), shape.values(v), mask, shape.outputs(out),
            lse, 0, shape.outputs(dOut), shape.queries(dq), shape.keys(dk), shape.values(dv), dBias, null)
            .run(pool);
    }

    /**
     * Extra floats of one backward call's {@link Workspace} (one per thread of the parallel call),
     * whatever L and S: at most {@link AttentionSpec#backwardScratchFloats} of the blocks in use.
     */
    public long backwardScratchFloats(int headDim, int valueDim) {
        return blocks.backwardScratchFloats(headDim, valueDim);
    }

    /**
     * Extra floats the parallel backward call on {@code shape} holds besides its workspaces, for
     * the partial dQ of key chunks 1, 2, …: at most {@code (chunks − 1)·L·H·d}, with at most
     * ⌈{@value BlockPolicy#MIN_UNITS} / Hkv⌉ chunks of at least {@value BlockPolicy#MIN_CHUNK_KEYS}
     * keys; 0 when the keys are not split. Never L·S: a partial holds the rows that see its chunk.
     */
    public long backwardPartialFloats(AttentionShape shape) {
        return (long) (blocks.keyChunksFor(shape).count() - 1) * shape.querySize();
    }

    /** A kernel travels as its spec ({@link SerializedKernel}). */
    private Object writeReplace() {
        return new SerializedKernel(spec);
    }

    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("FlashAttention is serialized through its SerializedKernel");
    }
}
