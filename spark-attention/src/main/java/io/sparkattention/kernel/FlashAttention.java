package io.sparkattention.kernel;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tiled (FlashAttention-style) forward attention for one sequence, in float32.
 *
 * <p>For each block of Bq queries the keys are visited in blocks of Bk. A tile's scores
 * {@code S = scale·Qᵢ·Kⱼᵀ + bias} are masked in place, then folded into a running row max
 * {@code m}, a running sum {@code ℓ} and an unnormalised accumulator {@code O} that is rescaled by
 * {@code exp(m_old − m_new)} whenever the max grows (the online softmax). At the end
 * {@code O /= ℓ} and the log-sum-exp {@code m + log ℓ} is kept. Key blocks outside the causal /
 * window / padding band are never visited, so causal attention does about half the work.
 *
 * <p>Extra memory is one {@link Workspace}: {@link #scratchFloats} floats, whatever L and S.
 * A query row that can see no key gets output 0 and log-sum-exp −∞ (never NaN), as PyTorch ≥ 2.5,
 * FlashAttention and ONNX do. NaN or ±∞ in the inputs propagate to the rows they touch.
 *
 * <p>The public methods check every argument; the tile loops below them do not.
 */
public final class FlashAttention implements Serializable {

    private static final long serialVersionUID = 1L;

    /** One scratch per pool thread for the parallel forward. */
    private static final ThreadLocal<Workspace> WORKSPACES = ThreadLocal.withInitial(Workspace::new);

    /**
     * A call with blocks left to the tile implementation has at least this many (head, query
     * block) units, or query blocks of {@link #MIN_AUTO_QUERY_BLOCK} rows: large default blocks
     * (1024 rows with AVX-512) would otherwise leave a parallel call's threads idle on few heads
     * (one head of 1024 tokens would be one unit). Eight keeps up to 8 threads busy, or 2 threads
     * balanced when the units' costs differ (causal). Sequential calls cut the same blocks, so
     * that both give the same bits.
     */
    static final int MIN_UNITS = 8;
    /** The smallest query block {@link #MIN_UNITS} shrinks an automatic block to. */
    static final int MIN_AUTO_QUERY_BLOCK = 256;

    /** As given: blocks may be left to the tile implementation. */
    private final AttentionSpec spec;
    /** Not serialized: each JVM runs the tile implementation it chose for itself (see {@link #writeReplace}). */
    private final transient TileOps ops;
    /** {@link #spec} with the tile implementation's blocks where it left them open. */
    private final transient AttentionSpec tiles;

    /** A kernel with the JVM's chosen {@link TileOps}. */
    public FlashAttention(AttentionSpec spec) {
        this(spec, TileOps.get());
    }

    /** A kernel with explicit tile arithmetic (tests run every implementation). */
    public FlashAttention(AttentionSpec spec, TileOps ops) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.ops = Objects.requireNonNull(ops, "ops");
        this.tiles = spec.withBlocks(
            spec.queryBlock() == AttentionSpec.AUTO_BLOCK ? ops.defaultQueryBlock() : spec.queryBlock(),
            spec.keyBlock() == AttentionSpec.AUTO_BLOCK ? ops.defaultKeyBlock() : spec.keyBlock());
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
        return tiles.queryBlock();
    }

    /** Keys per tile in use: the spec's, or the tile implementation's when the spec left it open. */
    public int keyBlock() {
        return tiles.keyBlock();
    }

    /**
     * Extra floats of one call's {@link Workspace}, whatever L and S: at most {@link AttentionSpec#scratchFloats}
     * of the blocks in use (a call with fewer queries than a block, or whose block {@link #queryBlockFor}
     * shrinks, needs less).
     */
    public long scratchFloats(int headDim, int valueDim) {
        return tiles.scratchFloats(headDim, valueDim);
    }

    /**
     * This kernel with its blocks fixed to those a call on {@code whole} uses ({@link #queryBlockFor}),
     * to compute a part of such a call (one head of a row) exactly as the call itself would: a
     * one-head call would otherwise shrink an automatic block further.
     */
    public FlashAttention withBlocksOf(AttentionShape whole) {
        return new FlashAttention(spec.withBlocks(queryBlockFor(whole), tiles.keyBlock()), ops);
    }

    /**
     * Query rows per block for one call of {@link #forward}: the blocks in use, or, when the spec
     * left them to the tile implementation, halved while the call would have fewer than
     * {@link #MIN_UNITS} (head, query block) units, down to {@link #MIN_AUTO_QUERY_BLOCK}. A
     * function of the shape alone, so the sequential and the parallel calls cut the same blocks.
     */
    public int queryBlockFor(AttentionShape shape) {
        int bq = tiles.queryBlock();
        if (spec.queryBlock() != AttentionSpec.AUTO_BLOCK) {
            return bq;
        }
        int L = shape.queryLength(), H = shape.numHeads();
        while (bq > MIN_AUTO_QUERY_BLOCK && (long) H * ((L + bq - 1) / bq) < MIN_UNITS) {
            bq = Math.max(MIN_AUTO_QUERY_BLOCK, bq / 2);
        }
        return bq;
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
        checkInputs(shape, q, k, v, mask);
        checkLength("output", out, shape.outputSize());
        if (lse != null) {
            checkLength("log-sum-exp", lse, shape.numHeads() * shape.queryLength());
        }
        KeyBand band = new KeyBand(spec, shape.queryLength(), shape.keyLength(), mask.validKeys(shape.keyLength()));
        int Bq = queryBlockFor(shape);
        ws.ensure(Math.min(Bq, shape.queryLength()), tiles.keyBlock(), shape.headDim(), shape.valueDim());
        for (int h = 0; h < shape.numHeads(); h++) {
            forwardRows(shape, h, 0, shape.queryLength(), Bq, band, q, k, v, mask, out, lse, ws);
        }
    }

    /**
     * The same as {@link #forward(AttentionShape, float[], float[], float[], RowMask, float[], float[], Workspace)},
     * with (head, query block) units spread over {@code pool}'s threads. Units write disjoint parts
     * of {@code out} and {@code lse}, and each unit's arithmetic is the same as in the sequential
     * call, so the result is bitwise identical to it whatever the thread count.
     *
     * <p>Balance: units are handed out one at a time, largest first (a unit's cost is the number
     * of keys its block can see, so causal blocks near the end of the sequence go first). The
     * cheap units at the end fill the gaps, and no thread waits long for another.
     */
    public void forward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                        float[] out, float[] lse, ForkJoinPool pool) {
        checkInputs(shape, q, k, v, mask);
        checkLength("output", out, shape.outputSize());
        if (lse != null) {
            checkLength("log-sum-exp", lse, shape.numHeads() * shape.queryLength());
        }
        Objects.requireNonNull(pool, "pool");
        KeyBand band = new KeyBand(spec, shape.queryLength(), shape.keyLength(), mask.validKeys(shape.keyLength()));
        int L = shape.queryLength(), Bq = queryBlockFor(shape);
        int blocksPerHead = (L + Bq - 1) / Bq;
        // Blocks by decreasing cost; every head has the same order.
        Integer[] blocks = new Integer[blocksPerHead];
        long[] cost = new long[blocksPerHead];
        for (int b = 0; b < blocksPerHead; b++) {
            blocks[b] = b;
            long first = (long) b * Bq, last = Math.min(L, first + Bq) - 1;
            cost[b] = Math.max(0, Math.min(shape.keyLength(), band.hi(last) + 1) - Math.max(0, band.lo(first)));
        }
        Arrays.sort(blocks, (x, y) -> Long.compare(cost[y], cost[x]));
        int units = shape.numHeads() * blocksPerHead;
        AtomicInteger next = new AtomicInteger();
        Runnable worker = () -> {
            Workspace ws = WORKSPACES.get();
            ws.ensure(Math.min(Bq, L), tiles.keyBlock(), shape.headDim(), shape.valueDim());
            for (int unit; (unit = next.getAndIncrement()) < units; ) {
                int h = unit % shape.numHeads();
                int r0 = blocks[unit / shape.numHeads()] * Bq;
                forwardRows(shape, h, r0, Math.min(L, r0 + Bq), Bq, band, q, k, v, mask, out, lse, ws);
            }
        };
        int workers = Math.max(1, Math.min(pool.getParallelism(), units));
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[workers];
        for (int i = 0; i < workers; i++) {
            tasks[i] = pool.submit(worker);
        }
        for (ForkJoinTask<?> task : tasks) {
            task.join();
        }
    }

    /** Queries {@code [r0, r1)} of head {@code h}, in blocks of {@code Bq}. */
    private void forwardRows(AttentionShape shape, int h, int r0, int r1, int Bq, KeyBand band, float[] q, float[] k,
                             float[] v, RowMask mask, float[] out, float[] lse, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dv = shape.valueDim();
        int kv = shape.kvHeadOf(h);
        boolean[] allowed = mask.allowed();
        float[] bias = mask.bias();
        attendHead(ws, spec.scaleFor(d), Bq, band, r1 - r0, S, d, dv, r0, 0,
            q, r0 * H * d + h * d, H * d,
            k, kv * d, Hkv * d,
            v, kv * dv, Hkv * dv,
            allowed, allowed == null ? 0 : RowMask.headOffset(allowed.length, h, L, S) + r0 * S, S,
            bias, bias == null ? 0 : RowMask.headOffset(bias.length, h, L, S) + r0 * S, S,
            out, r0 * H * dv + h * dv, H * dv,
            lse, h * L + r0);
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
        if (rows < 0 || keys < 0 || d < 1 || dv < 1) {
            throw new IllegalArgumentException("bad block shape: rows=" + rows + ", keys=" + keys + ", d=" + d + ", dv=" + dv);
        }
        if ((long) pos.queryStart() + rows > pos.totalQueries() || (long) pos.keyStart() + keys > pos.totalKeys()) {
            throw new IllegalArgumentException("block [" + pos.queryStart() + "+" + rows + ") × [" + pos.keyStart()
                + "+" + keys + ") exceeds the sequence's " + pos.totalQueries() + "×" + pos.totalKeys());
        }
        checkLength("query block", q, rows * d);
        checkLength("key block", k, keys * d);
        checkLength("value block", v, keys * dv);
        checkLength("output block", out, rows * dv);
        checkLength("log-sum-exp block", lse, rows);
        if (allowed != null) {
            checkLength("boolean mask block", allowed, rows * keys);
        }
        if (bias != null) {
            checkLength("bias block", bias, rows * keys);
        }
        int validKeys = pos.validKeys() < 0 ? pos.totalKeys() : pos.validKeys();
        KeyBand band = new KeyBand(spec, pos.totalQueries(), pos.totalKeys(), validKeys);
        ws.ensure(Math.min(tiles.queryBlock(), rows), tiles.keyBlock(), d, dv);
        attendHead(ws, spec.scaleFor(d), tiles.queryBlock(), band, rows, keys, d, dv, pos.queryStart(), pos.keyStart(),
            q, 0, d, k, 0, d, v, 0, dv, allowed, 0, keys, bias, 0, keys, out, 0, dv, lse, 0);
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
        checkLength("query", q, shape.querySize());
        checkLength("key", k, shape.keySize());
        Objects.requireNonNull(mask, "mask");
        mask.check(shape.numHeads(), shape.queryLength(), shape.keyLength());
        checkLength("log-sum-exp", lse, shape.numHeads() * shape.queryLength());
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim();
        long plane = (long) L * S;
        long size = perHead ? plane * H : plane;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("attention weights of " + shape + " do not fit one Java array");
        }
        checkLength("attention weights", weights, (int) size);
        Arrays.fill(weights, 0f);
        float scale = spec.scaleFor(d);
        float factor = perHead ? 1f : 1f / H;
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys(S));
        ws.ensure(Math.min(tiles.queryBlock(), L), tiles.keyBlock(), d, 1);
        for (int h = 0; h < H; h++) {
            int kv = shape.kvHeadOf(h);
            boolean[] allowed = mask.allowed();
            float[] bias = mask.bias();
            weightsHead(ws, scale, band, L, S, d,
                q, h * d, H * d, k, kv * d, Hkv * d,
                allowed, allowed == null ? 0 : RowMask.headOffset(allowed.length, h, L, S),
                bias, bias == null ? 0 : RowMask.headOffset(bias.length, h, L, S),
                lse, h * L, weights, perHead ? (int) (h * plane) : 0, factor);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Tile loops. No argument checks below this line: the entry points above did them.
    // ---------------------------------------------------------------------------------------

    /**
     * One head, {@code rows} queries against {@code keys} keys, all strided views.
     * Shapes: q rows×d (ldq), k keys×d (ldk), v keys×dv (ldv), out rows×dv (ldo), lse rows;
     * allowed/bias rows×keys (ld given), or null. q0/k0: global positions of row 0 and key 0.
     *
     * <p>Loops: query blocks of Bq, key tiles of Bk, and inside a tile the block's strips (see
     * {@link TileOps}): each strip clips the tile to the keys its own queries can see, so a causal
     * diagonal tile costs about half a tile when strips are narrow.
     */
    private void attendHead(Workspace ws, float scale, int Bq, KeyBand band, int rows, int keys, int d, int dv,
                            long q0, long k0,
                            float[] q, int qOff, int ldq,
                            float[] k, int kOff, int ldk,
                            float[] v, int vOff, int ldv,
                            boolean[] allowed, int allowedOff, int ldAllowed,
                            float[] bias, int biasOff, int ldBias,
                            float[] out, int outOff, int ldo,
                            float[] lse, int lseOff) {
        final int Bk = tiles.keyBlock();
        final float[] s = ws.scores, m = ws.rowMax, l = ws.rowSum, acc = ws.acc, qp = ws.queries;
        final OnlineSoftmax softmax = ops.softmax();
        final boolean packed = ops.packsKeyValues();
        final int accQs = ops.accQueryStride(dv);

        for (int i0 = 0; i0 < rows; i0 += Bq) {
            final int bq = Math.min(Bq, rows - i0);
            final long first = q0 + i0, last = first + bq - 1;
            // (1) keys any query of this block can see: the band's corners, in view coordinates.
            final int jlo = (int) Math.max(0, band.lo(first) - k0);
            final int jhi = (int) Math.min(keys, band.hi(last) - k0 + 1);

            Arrays.fill(m, 0, bq, Float.NEGATIVE_INFINITY);
            Arrays.fill(l, 0, bq, 0f);
            Arrays.fill(acc, 0, bq * dv, 0f);
            final float alpha = jlo < jhi ? ops.packQueries(bq, d, scale, q, qOff + i0 * ldq, ldq, qp) : 1f;

            for (int j0 = jlo; j0 < jhi; j0 += Bk) {
                final int j1 = Math.min(j0 + Bk, jhi);
                // (2) the tile's K and V rows, contiguous when the products want them so
                final float[] kt, vt;
                final int ktOff, ldkt, vtOff, ldvt;
                if (packed) {
                    ldkt = Workspace.keyRow(d);
                    packRows(j1 - j0, d, k, kOff + j0 * ldk, ldk, ws.keys, ldkt);
                    packRows(j1 - j0, dv, v, vOff + j0 * ldv, ldv, ws.values, dv);
                    kt = ws.keys;
                    ktOff = -j0 * ldkt;
                    vt = ws.values;
                    vtOff = -j0 * dv;
                    ldvt = dv;
                } else {
                    kt = k;
                    ktOff = kOff;
                    ldkt = ldk;
                    vt = v;
                    vtOff = vOff;
                    ldvt = ldv;
                }
                final boolean edge = band.lo(last) > k0 + j0 || band.hi(first) < k0 + j1 - 1;
                for (int r0 = 0, w; r0 < bq; r0 += w) {
                    w = ops.strip(bq - r0, edge);
                    final long sFirst = first + r0, sLast = sFirst + w - 1;
                    // (3) the strip's keys in this tile: [c0, c1) in view coordinates
                    final int c0 = (int) Math.max(j0, band.lo(sFirst) - k0);
                    final int c1 = (int) Math.min(j1, band.hi(sLast) - k0 + 1);
                    if (c0 >= c1) {
                        continue;  // no query of the strip sees these keys
                    }
                    final int nk = c1 - c0, lds = ops.scoreStride(w);
                    // (4) S = (scale·Q)·Kᵀ   (nk×w, key-major, keys lds apart)
                    ops.scores(w, nk, d, alpha, qp, r0 * d, kt, ktOff + c0 * ldkt, ldkt, s, lds);
                    // (5) bias and masks
                    applyMasks(s, w, lds, nk, band, sFirst, k0 + c0, allowed,
                        allowedOff + (i0 + r0) * ldAllowed + c0, ldAllowed, bias, biasOff + (i0 + r0) * ldBias + c0,
                        ldBias);
                    // (6) online softmax: P = exp(S − m_new), ℓ and O rescaled by exp(m_old − m_new)
                    final int accOff = ops.accOffset(r0, bq, dv), accCs = ops.accColumnStride(w, bq);
                    softmax.update(w, lds, nk, s, m, l, ws.rowScale, r0, acc, accOff, accQs, accCs, dv);
                    // (7) O += P·Vⱼ   (w×dv)
                    ops.accumulate(w, nk, dv, s, lds, vt, vtOff + c0 * ldvt, ldvt, acc, accOff, accCs);
                }
            }

            // (8) O /= ℓ, lse = m + log ℓ; rows that saw no key: 0 and −∞.
            for (int r0 = 0, w; r0 < bq; r0 += w) {
                w = ops.strip(bq - r0, false);
                final int a = ops.accOffset(r0, bq, dv), accCs = ops.accColumnStride(w, bq);
                for (int r = 0; r < w; r++) {
                    final int row = i0 + r0 + r;
                    final int o = outOff + row * ldo;
                    final float sum = l[r0 + r];
                    if (sum == 0f) {
                        Arrays.fill(out, o, o + dv, 0f);
                        if (lse != null) {
                            lse[lseOff + row] = Float.NEGATIVE_INFINITY;
                        }
                        continue;
                    }
                    final float inv = 1f / sum;
                    final int ar = a + r * accQs;
                    if (accCs == 1) {  // a row per query: a loop C2 vectorises
                        for (int t = 0; t < dv; t++) {
                            out[o + t] = acc[ar + t] * inv;
                        }
                    } else {
                        for (int t = 0; t < dv; t++) {
                            out[o + t] = acc[ar + t * accCs] * inv;
                        }
                    }
                    if (lse != null) {
                        lse[lseOff + row] = m[r0 + r] + (float) Math.log(sum);
                    }
                }
            }
        }
    }

    /** Weights of one head: {@code w += factor · exp(S − lse)} over the band's tiles. */
    private void weightsHead(Workspace ws, float scale, KeyBand band, int L, int S, int d,
                             float[] q, int qOff, int ldq, float[] k, int kOff, int ldk,
                             boolean[] allowed, int allowedOff, float[] bias, int biasOff,
                             float[] lse, int lseOff, float[] weights, int wOff, float factor) {
        final int Bq = tiles.queryBlock(), Bk = tiles.keyBlock();
        final float[] s = ws.scores, qp = ws.queries;
        for (int i0 = 0; i0 < L; i0 += Bq) {
            final int bq = Math.min(Bq, L - i0);
            final int jlo = (int) Math.max(0, band.lo(i0));
            final int jhi = (int) Math.min(S, band.hi(i0 + bq - 1) + 1);
            if (jlo >= jhi) {
                continue;
            }
            final float alpha = ops.packQueries(bq, d, scale, q, qOff + i0 * ldq, ldq, qp);
            for (int j0 = jlo; j0 < jhi; j0 += Bk) {
                final int j1 = Math.min(j0 + Bk, jhi);
                final boolean edge = band.lo(i0 + bq - 1) > j0 || band.hi(i0) < j1 - 1;
                for (int r0 = 0, w; r0 < bq; r0 += w) {
                    w = ops.strip(bq - r0, edge);
                    final int sFirst = i0 + r0;
                    final int c0 = (int) Math.max(j0, band.lo(sFirst));
                    final int c1 = (int) Math.min(j1, band.hi(sFirst + w - 1) + 1);
                    if (c0 >= c1) {
                        continue;
                    }
                    final int nk = c1 - c0, lds = ops.scoreStride(w);
                    ops.scores(w, nk, d, alpha, qp, r0 * d, k, kOff + c0 * ldk, ldk, s, lds);
                    applyMasks(s, w, lds, nk, band, sFirst, c0, allowed, allowedOff + sFirst * S + c0, S,
                        bias, biasOff + sFirst * S + c0, S);
                    ops.softmax().expMinus(w, lds, nk, s, lse, lseOff + sFirst);
                    for (int r = 0; r < w; r++) {
                        if (lse[lseOff + sFirst + r] == Float.NEGATIVE_INFINITY) {
                            continue;  // fully masked row: weights stay 0
                        }
                        final int dst = wOff + (sFirst + r) * S + c0;
                        for (int c = 0; c < nk; c++) {
                            weights[dst + c] += factor * s[c * lds + r];
                        }
                    }
                }
            }
        }
    }

    /** Copies {@code rows} rows of {@code cols} floats from a strided view into {@code dst}, {@code ldDst} apart. */
    private static void packRows(int rows, int cols, float[] src, int off, int ld, float[] dst, int ldDst) {
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, off + r * ld, dst, r * ldDst, cols);
        }
    }

    /**
     * Adds the bias and applies the band and the boolean mask to a strip's key-major scores
     * {@code s[c·lds + r]}. {@code qFirst}/{@code kFirst}: global positions of the strip's first
     * query and key; bias and allowed are row-major views (query rows, ld given) of the strip's
     * corner, or null.
     */
    private static void applyMasks(float[] s, int w, int lds, int nk, KeyBand band, long qFirst, long kFirst,
                                   boolean[] allowed, int allowedOff, int ldAllowed,
                                   float[] bias, int biasOff, int ldBias) {
        if (bias != null) {
            for (int r = 0; r < w; r++) {
                final int b = biasOff + r * ldBias;
                for (int c = 0; c < nk; c++) {
                    s[c * lds + r] += bias[b + c];
                }
            }
        }
        // The band: key j is visible to queries [firstQuery(j), lastQuery(j)], a contiguous run
        // of each key row. Strips wholly inside the band skip this.
        if (band.cuts(qFirst, qFirst + w - 1, kFirst, kFirst + nk - 1)) {
            final long qLast = qFirst + w - 1;
            // Keys [lo(qLast), hi(qFirst)] are seen by every query of the strip (both bounds are
            // non-decreasing): only the keys either side of that run are walked. On a causal
            // diagonal that is the strip's last w − 1 keys, not all of the tile's.
            final int seenFrom = (int) Math.min(nk, Math.max(0, band.lo(qLast) - kFirst));
            final int seenTo = (int) Math.min(nk, Math.max(seenFrom, band.hi(qFirst) - kFirst + 1));
            maskKeys(s, w, lds, band, qFirst, kFirst, 0, seenFrom);
            maskKeys(s, w, lds, band, qFirst, kFirst, seenTo, nk);
        }
        if (allowed != null) {
            for (int r = 0; r < w; r++) {
                final int a = allowedOff + r * ldAllowed;
                for (int c = 0; c < nk; c++) {
                    if (!allowed[a + c]) {
                        s[c * lds + r] = Float.NEGATIVE_INFINITY;
                    }
                }
            }
        }
    }

    /**
     * The band on keys {@code [c0, c1)} of a strip's scores: key j is visible to queries
     * {@code [firstQuery(j), lastQuery(j)]}, a contiguous run of its row; the rest become −∞.
     */
    private static void maskKeys(float[] s, int w, int lds, KeyBand band, long qFirst, long kFirst, int c0, int c1) {
        final long qLast = qFirst + w - 1;
        for (int c = c0; c < c1; c++) {
            final long j = kFirst + c;
            final long firstVisible = band.firstQuery(j);
            final int from = firstVisible <= qFirst ? 0 : (int) Math.min(w, firstVisible - qFirst);
            final long lastVisible = band.lastQuery(j);
            final int to = lastVisible >= qLast ? w : (int) Math.max(0, lastVisible - qFirst + 1);
            final int row = c * lds;
            if (from >= to) {
                Arrays.fill(s, row, row + w, Float.NEGATIVE_INFINITY);
            } else {
                Arrays.fill(s, row, row + from, Float.NEGATIVE_INFINITY);
                Arrays.fill(s, row + to, row + w, Float.NEGATIVE_INFINITY);
            }
        }
    }

    private static void checkInputs(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask) {
        Objects.requireNonNull(shape, "shape");
        checkLength("query", q, shape.querySize());
        checkLength("key", k, shape.keySize());
        checkLength("value", v, shape.valueSize());
        Objects.requireNonNull(mask, "mask (use RowMask.NONE)");
        mask.check(shape.numHeads(), shape.queryLength(), shape.keyLength());
    }

    private static void checkLength(String what, float[] a, int expected) {
        if (a == null) {
            throw new IllegalArgumentException(what + " is null, expected " + expected + " values");
        }
        if (a.length != expected) {
            throw new IllegalArgumentException(what + " has " + a.length + " values, expected " + expected);
        }
    }

    private static void checkLength(String what, boolean[] a, int expected) {
        if (a.length != expected) {
            throw new IllegalArgumentException(what + " has " + a.length + " values, expected " + expected);
        }
    }

    /**
     * A kernel travels (to Spark executors) as its spec alone and is rebuilt there with that JVM's
     * own {@link TileOps} choice: the implementations depend on the machine (native BLAS, vector
     * width), and the spec is all that defines the numbers.
     */
    private Object writeReplace() {
        return new SerializedForm(spec);
    }

    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("FlashAttention is serialized through its SerializedForm");
    }

    /** The serialized form: the spec. */
    private static final class SerializedForm implements Serializable {
        private static final long serialVersionUID = 1L;
        private final AttentionSpec spec;

        SerializedForm(AttentionSpec spec) {
            this.spec = spec;
        }

        private Object readResolve() {
            return new FlashAttention(spec);
        }
    }
}
