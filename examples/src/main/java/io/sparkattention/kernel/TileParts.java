package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.Objects;

/**
 * The three steps of one Bq×Bk tile of the forward pass, run separately, for benchmarks that time
 * each step of a tile implementation on its own (the JMH tile benchmarks): the score product, the
 * online-softmax update and the P·V product, strip after strip as the kernel runs them, with the
 * kernel's own layouts and scratch. A lab class, shipped in the examples jar and not in the
 * library: it sits in the kernel's package because the tile steps ({@link TileOps}' strip,
 * score, softmax and accumulate methods, {@link Workspace}'s buffers) are package-private, and
 * the library keeps no measuring handle on them.
 *
 * <p>The query block is read once at construction; K and V are read in place (rows {@code ld}
 * apart, as in a multi-head layout) or from contiguous copies when the tile implementation packs
 * them, as the kernel does.
 */
public final class TileParts {

    private final TileOps ops;
    private final int bq, bk, d;
    private final float alpha;
    private final float[] k, v, kt, vt;
    private final int ldk, ldv;
    private final Workspace ws = new Workspace();

    /**
     * @param ops the tile implementation ({@link TileOps#named})
     * @param bq  queries in the tile (≥ 1)
     * @param bk  keys in the tile (≥ 1)
     * @param d   head dimension, for queries, keys and values (≥ 1)
     * @param q   bq query rows of d, {@code ld} apart, scaled by {@code scale}
     * @param k   bk key rows, {@code ld} apart
     * @param v   bk value rows, {@code ld} apart
     * @param ld  leading dimension of q, k and v (≥ d)
     */
    public TileParts(TileOps ops, int bq, int bk, int d, float[] q, float[] k, float[] v, int ld, float scale) {
        this.ops = Objects.requireNonNull(ops, "ops");
        if (bq < 1 || bk < 1 || d < 1 || ld < d) {
            throw new IllegalArgumentException("bad tile: bq=" + bq + ", bk=" + bk + ", d=" + d + ", ld=" + ld);
        }
        Objects.requireNonNull(q, "q");
        Objects.requireNonNull(k, "k");
        Objects.requireNonNull(v, "v");
        if ((long) (bq - 1) * ld + d > q.length || (long) (bk - 1) * ld + d > Math.min(k.length, v.length)) {
            throw new IllegalArgumentException("q, k or v holds fewer than its rows of " + ld + " floats");
        }
        this.bq = bq;
        this.bk = bk;
        this.d = d;
        this.k = k;
        this.v = v;
        this.ldk = ld;
        this.ldv = ld;
        ws.ensure(bq, bk, d, d);
        this.alpha = ops.packQueries(bq, d, scale, q, 0, ld, ws.queries);
        this.kt = new float[bk * Workspace.keyRow(d)];
        this.vt = new float[bk * d];
        Workspace.packRows(bk, d, k, 0, ld, kt, Workspace.keyRow(d));
        Workspace.packRows(bk, d, v, 0, ld, vt, d);
        scores();
    }

    /** S = (scale·Q)·Kᵀ for every strip of the block; answers the score tile. */
    public float[] scores() {
        boolean packed = ops.packsKeyValues();
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = ops.strip(bq - r0, false);
            if (packed) {
                ops.scores(w, bk, d, alpha, ws.queries, r0 * d, kt, 0, Workspace.keyRow(d), ws.scores, ops.scoreStride(w));
            } else {
                ops.scores(w, bk, d, alpha, ws.queries, r0 * d, k, 0, ldk, ws.scores, ops.scoreStride(w));
            }
        }
        return ws.scores;
    }

    /**
     * Scores then the online-softmax update (max, exp, sums, rescale) of every strip, from a finite
     * running max so that every update rescales (the softmax needs fresh scores each time: its own
     * cost is this minus {@link #scores()}); answers the probabilities.
     */
    public float[] scoresThenSoftmax() {
        Arrays.fill(ws.rowMax, 0, bq, 0f);
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = ops.strip(bq - r0, false);
            int lds = ops.scoreStride(w);
            ops.scores(w, bk, d, alpha, ws.queries, r0 * d, ops.packsKeyValues() ? kt : k, 0,
                ops.packsKeyValues() ? Workspace.keyRow(d) : ldk, ws.scores, lds);
            ops.softmax().update(w, lds, bk, ws.scores, ws.rowMax, ws.rowSum, ws.rowScale, r0, ws.acc,
                ops.accOffset(r0, bq, d), ops.accQueryStride(d), ops.accColumnStride(w, bq), d);
        }
        return ws.scores;
    }

    /** O += P·V for every strip of the block, P being the score tile as it stands; answers the accumulator. */
    public float[] accumulate() {
        boolean packed = ops.packsKeyValues();
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = ops.strip(bq - r0, false);
            ops.accumulate(w, bk, d, ws.scores, ops.scoreStride(w), packed ? vt : v, 0, packed ? d : ldv, ws.acc,
                ops.accOffset(r0, bq, d), ops.accColumnStride(w, bq));
        }
        return ws.acc;
    }
}
