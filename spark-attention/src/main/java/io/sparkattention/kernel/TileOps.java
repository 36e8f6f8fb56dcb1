package io.sparkattention.kernel;

import java.util.Objects;

/**
 * The arithmetic of one tile: packing a query block, the two products and the softmax passes.
 *
 * <p><b>Layout.</b> A query block is cut into strips of queries ({@link #strip}); a strip of
 * {@code w} queries is processed on its own, its tiles are key-major with the queries side by
 * side: scores and probabilities {@code s[c·w + r]} (key c, query r), the accumulator
 * {@code acc[accOffset(r0) + t·accStride(w) + r]} (value column t). Packed queries of the strip
 * at {@code r0} start at {@code r0·d}; the layout inside is the implementation's. Other matrices
 * are row-major views {@code (array, offset, leading dimension)}.
 *
 * <p>Everything here is an inner loop: arguments were checked by the public entry points of
 * {@link FlashAttention}, so implementations do not check them again. The implementation is
 * chosen once per JVM ({@link TileOpsChoice}); every one is tested against the same float64
 * reference.
 */
public abstract class TileOps {

    private final OnlineSoftmax softmax;

    TileOps(OnlineSoftmax softmax) {
        this.softmax = Objects.requireNonNull(softmax, "softmax");
    }

    /**
     * Width of the next strip when {@code remaining ≥ 1} queries of the block are left. On an
     * {@code edge} tile (one the causal, window or padding band cuts through) an implementation may
     * answer narrower strips, so that each clips the tile to the keys its queries can see; its
     * packed-query and accumulator layouts must then not depend on the strip widths.
     */
    abstract int strip(int remaining, boolean edge);

    /** Offset in the accumulator of the strip that starts at query {@code r0} of a block of {@code bq}. */
    abstract int accOffset(int r0, int bq, int dv);

    /** Distance between value columns in the accumulator of a strip of {@code w} queries in a block of {@code bq}. */
    abstract int accStride(int w, int bq);

    /**
     * True when the products want each key tile's K and V rows copied into contiguous scratch
     * first. K and V rows of one head sit H·d floats apart (4 KiB for 16 heads of 64): read in
     * place, a tile's rows all fall into the same few cache sets and evict each other. A BLAS
     * packs its operands itself and answers false.
     */
    abstract boolean packsKeyValues();

    /**
     * Copies {@code scale·Q} of a block of {@code rows} queries (row-major, {@code ldq}) into
     * {@code qp[0, rows·d)}, strip after strip in the implementation's layout.
     */
    abstract void packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp);

    /**
     * Scores of a strip: {@code s[c·w + r] = Σₜ qp(r, t)·k[kOff + c·ldk + t]} for c < nk, r < w,
     * where {@code qp(r, t)} is the strip's packed (scaled) query at {@code qpOff}.
     */
    abstract void scores(int w, int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s);

    /** Accumulates {@code acc[accOff + t·ldacc + r] += Σ_c p[c·w + r]·v[vOff + c·ldv + t]} for t < dv, r < w. */
    abstract void accumulate(int w, int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff,
                             int ldacc);

    /** The softmax passes that go with these products. */
    final OnlineSoftmax softmax() {
        return softmax;
    }

    /** Human-readable name, reported by {@code bench} and logged at start-up. */
    public abstract String name();

    /** The implementation in use (see {@link TileOpsChoice}). */
    public static TileOps get() {
        return TileOpsChoice.INSTANCE;
    }

    /**
     * A new instance of a named implementation, for side-by-side benchmarks: {@code auto},
     * {@code vector} (Java Vector API micro-kernels), {@code blas} ({@code sgemm} from {@link Blas}
     * with the vectorised softmax when available) or {@code blas-scalar} ({@code sgemm} with the
     * plain-Java softmax).
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    for {@code vector} when {@code jdk.incubator.vector} is not visible
     */
    public static TileOps named(String name) {
        return TileOpsChoice.create(name);
    }
}
