package io.sparkattention.kernel;

import java.util.concurrent.ForkJoinPool;

/**
 * One backward call's units of work and the order in which their results combine. A unit is one
 * group of query heads × one key chunk ({@link KeyChunks}): the query heads of one key/value head
 * (all heads when dBias is one L×S plane summed over them), walked in head order by
 * {@link BackwardPass} over the query blocks that see the chunk's keys. Units write disjoint dK
 * and dV rows and disjoint dBias columns; a query's dQ is the sum of the chunks' partials, added in
 * ascending chunk order:
 * <pre>
 *   sequential  for each group, for each chunk c = 0, 1, …:   dQ += partial_c, in place
 *   parallel    the units on the pool, largest first:          chunk 0 adds into dQ, chunk c ≥ 1
 *                                                              into its own buffer (zeroed)
 *               then, for c = 1, 2, …:                         dQ += buffer_c
 * </pre>
 * dQ starts at +0, and a sum that starts at +0 is never −0, so adding {@code 0 + partial} (a
 * buffer) or {@code partial} gives the same bits: both calls agree bit for bit whatever the thread
 * count. Memory besides the per-thread {@link Workspace}s: the parallel call's buffers, rows that
 * see the chunk × the group's columns, at most {@code (chunks − 1)·L·H·d} floats in all.
 *
 * <p>Shapes as in {@link FlashAttention#backward}; the arrays were checked and the gradients
 * zeroed by the caller.
 */
final class BackwardUnits {

    private final TileOps ops;
    private final KeyBand band;
    private final KeyChunks chunks;
    private final int Bq, Bk;
    private final float scale;
    private final AttentionShape shape;
    private final int L, S, H, Hkv, d, dvh;
    private final RowMask mask;
    private final MatrixView q, k, v, out, dOut, dq, dk, dv;
    private final float[] lse, dBias;
    /** Dropout on the probabilities, or null. */
    private final ProbabilityDropout dropout;
    private final int lseOff;
    /** Groups of consecutive query heads that one unit walks, and heads per group. */
    private final int groups, groupHeads;
    /** Per chunk: the query rows {@code [rowFrom, rowTo)} its walk visits, and its cost (query × key pairs walked). */
    private final int[] rowFrom, rowTo;
    private final long[] cost;

    BackwardUnits(TileOps ops, BlockPolicy blocks, float scale, AttentionShape shape, KeyBand band, RowMask mask,
                  MatrixView q, MatrixView k, MatrixView v, MatrixView out, float[] lse, int lseOff, MatrixView dOut,
                  MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias, ProbabilityDropout dropout) {
        this.ops = ops;
        this.band = band;
        this.chunks = blocks.keyChunksFor(shape);
        this.Bq = blocks.queryBlock();
        this.Bk = blocks.keyBlock();
        this.scale = scale;
        this.shape = shape;
        this.L = shape.queryLength();
        this.S = shape.keyLength();
        this.H = shape.numHeads();
        this.Hkv = shape.numKvHeads();
        this.d = shape.headDim();
        this.dvh = shape.valueDim();
        this.mask = mask;
        this.q = q;
        this.k = k;
        this.v = v;
        this.out = out;
        this.lse = lse;
        this.lseOff = lseOff;
        this.dOut = dOut;
        this.dq = dq;
        this.dk = dk;
        this.dv = dv;
        this.dBias = dBias;
        this.dropout = dropout;
        boolean sharedBias = dBias != null && H > 1 && dBias.length != (long) H * L * S;
        this.groups = sharedBias ? 1 : Hkv;
        this.groupHeads = H / groups;
        int n = chunks.count();
        this.rowFrom = new int[n];
        this.rowTo = new int[n];
        this.cost = new long[n];
        for (int c = 0; c < n; c++) {
            rowFrom[c] = chunks.firstRow(c, band, L, Bq);
            rowTo[c] = Math.max(rowFrom[c], chunks.endRow(c, band, L, Bq));
            cost[c] = walkedPairs(c);
        }
    }

    /** Every unit on the calling thread, with {@code ws}: group by group, chunks in ascending order. */
    void run(Workspace ws) {
        prepare(ws);
        for (int g = 0; g < groups; g++) {
            for (int c = 0; c < chunks.count(); c++) {
                unit(g, c, null, ws);
            }
        }
    }

    /** The units on {@code pool}'s threads, largest first, then the chunks' dQ buffers added in ascending order. */
    void run(ForkJoinPool pool) {
        int units = groups * chunks.count();
        long[] unitCost = new long[units];
        for (int u = 0; u < units; u++) {
            unitCost[u] = cost[u / groups];
        }
        int[] order = ParallelUnits.largestFirst(unitCost);
        float[][] partial = new float[units][];
        ParallelUnits.run(pool, units, this::prepare, (i, ws) -> {
            int u = order[i], g = u % groups, c = u / groups;
            if (c > 0 && rowFrom[c] < rowTo[c]) {
                partial[u] = new float[(rowTo[c] - rowFrom[c]) * groupHeads * d];
            }
            unit(g, c, partial[u], ws);
        });
        addPartials(partial);
    }

    private void prepare(Workspace ws) {
        ws.ensureBackward(Math.min(Bq, L), Bk, d, dvh);
    }

    /**
     * Group {@code g}'s heads on chunk {@code c}, in head order; their dQ is added into
     * {@code partial} (the chunk's rows from {@code rowFrom[c]} on × the group's columns), or into
     * dQ itself when null.
     */
    private void unit(int g, int c, float[] partial, Workspace ws) {
        if (rowFrom[c] >= rowTo[c]) {
            return;
        }
        int width = groupHeads * d;
        for (int h = g * groupHeads; h < (g + 1) * groupHeads; h++) {
            MatrixView dqView = partial == null ? dq.columns(rowFrom[c], h * d)
                : new MatrixView(partial, (h - g * groupHeads) * d, width);
            walk(h, c, dqView, ws);
        }
    }

    /** Head {@code h}'s backward pass over chunk {@code c}'s keys and the query rows that see them. */
    private void walk(int h, int c, MatrixView dqView, Workspace ws) {
        int kv = shape.kvHeadOf(h), r0 = rowFrom[c], k0 = chunks.start(c);
        BackwardPass pass = new BackwardPass(ops, ws, band, scale, d, dvh, r0, k0,
            q.columns(r0, h * d),
            k.columns(k0, kv * d),
            v.columns(k0, kv * dvh),
            MaskView.headPlane(mask.allowed(), h, L, S, r0).from(0, k0),
            MatrixView.headPlane(mask.bias(), h, L, S, r0).from(0, k0),
            out.columns(r0, h * dvh), lse, lseOff + h * L + r0,
            dOut.columns(r0, h * dvh),
            dqView,
            dk.columns(k0, kv * d),
            dv.columns(k0, kv * dvh),
            MatrixView.headPlane(dBias, h, L, S, r0).from(0, k0), dropout, h);
        TileWalk.run(ops, band, Bq, Bk, rowTo[c] - r0, chunks.end(c) - k0, r0, k0, pass);
    }

    /** dQ += buffer, chunk 1, 2, … in turn; a group's heads are consecutive columns of dQ. */
    private void addPartials(float[][] partial) {
        int width = groupHeads * d;
        float[] dqData = dq.data();
        for (int c = 1; c < chunks.count(); c++) {
            for (int g = 0; g < groups; g++) {
                float[] p = partial[c * groups + g];
                if (p == null) {
                    continue;
                }
                for (int r = rowFrom[c]; r < rowTo[c]; r++) {
                    int dst = dq.offset() + r * dq.ld() + g * width, src = (r - rowFrom[c]) * width;
                    for (int t = 0; t < width; t++) {
                        dqData[dst + t] += p[src + t];
                    }
                }
            }
        }
    }

    /** Query × key pairs of the band's span in chunk {@code c}, block by block: what its walk computes. */
    private long walkedPairs(int c) {
        long pairs = 0;
        int k0 = chunks.start(c), k1 = chunks.end(c);
        for (int r = rowFrom[c]; r < rowTo[c]; r += Bq) {
            int last = Math.min(L, r + Bq) - 1;
            long keys = Math.min(k1, band.hi(last) + 1) - Math.max(k0, band.lo(r));
            pairs += (last - r + 1) * Math.max(0, keys);
        }
        return pairs;
    }
}
