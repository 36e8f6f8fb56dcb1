package io.sparkattention.kernel;

import java.util.Objects;

/**
 * The arithmetic of one tile: packing a query block, the two products and the softmax passes.
 *
 * <p><b>Layout.</b> A query block is cut into strips of queries ({@link #strip}); a strip of
 * {@code w} queries is processed on its own. Its score tiles are key-major with the queries side
 * by side: scores and probabilities {@code s[c·lds + r]} (key c, query r, {@code lds =}
 * {@link #scoreStride}{@code (w)}). The block's accumulator holds query r of the strip at
 * {@code r0}, value column t, at {@code acc[accOffset(r0) + r·accQueryStride + t·accColumnStride]};
 * one of the two strides is 1. Packed queries of the strip at {@code r0} start at {@code r0·d};
 * the layout inside is the implementation's. Other matrices are row-major views
 * {@code (array, offset, leading dimension)}.
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
     * True when these tiles should be chosen over a native BLAS ({@link TileOpsChoice}'s
     * {@code auto}). A BLAS-backed implementation answers false.
     */
    boolean preferredOverNativeBlas() {
        return false;
    }

    /**
     * Query rows per tile (Bq) when the spec leaves it to the implementation
     * ({@link AttentionSpec#AUTO_BLOCK}): 256. A query block's rows share every key tile they load
     * (the Java tiles copy each K and V tile once per block, a BLAS packs them once per call), so
     * larger blocks cut K/V traffic and per-call costs; a block is also the unit of parallel work
     * (see {@link BlockPolicy}). 256×256 tiles run 1.04–1.12× as fast as 128×128 at n = 512…4096
     * (Zen 3, 2 threads, 16 heads of 64); 1024 rows bring the BLAS path nothing.
     */
    int defaultQueryBlock() {
        return 256;
    }

    /**
     * Keys per tile (Bk) when the spec leaves it to the implementation: 256. The score tile is
     * Bq×Bk floats (264 KiB at 256×256 with its padded stride), half of Zen 3's 512 KiB L2; a
     * strip of it (16 queries × 256 keys with AVX2, 16 KiB) stays in L1 for the Java kernels. Each
     * per-tile BLAS call is 2·Bq·Bk·d flops (8.4 MFLOP at d = 64), so its fixed costs (the JNI
     * call, packing the shared operand) weigh half as much as at 128×128, and a query row is
     * rescaled half as often; Bk = 128 and 512 are no faster.
     */
    int defaultKeyBlock() {
        return 256;
    }

    /**
     * Width of the next strip when {@code remaining ≥ 1} queries of the block are left. On an
     * {@code edge} tile (one the causal, window or padding band cuts through) an implementation may
     * answer narrower strips, so that each clips the tile to the keys its queries can see; its
     * packed-query and accumulator layouts must then not depend on the strip widths.
     */
    abstract int strip(int remaining, boolean edge);

    /**
     * Distance between two keys' scores in a strip of {@code w} queries: {@code w} or more. A
     * wide strip's key rows a power of two apart fall into a few cache sets, and the softmax passes,
     * which walk down the keys, evict their own lines ({@link Workspace#scoreStride}).
     */
    abstract int scoreStride(int w);

    /** Offset in the accumulator of the strip that starts at query {@code r0} of a block of {@code bq}. */
    abstract int accOffset(int r0, int bq, int dv);

    /** Distance between two queries' accumulators: 1 (queries side by side) or {@code dv} (one row per query). */
    abstract int accQueryStride(int dv);

    /** Distance between value columns in the accumulator of a strip of {@code w} queries in a block of {@code bq}. */
    abstract int accColumnStride(int w, int bq);

    /**
     * True when the products want each key tile's K and V rows copied into contiguous scratch
     * first. K and V rows of one head sit H·d floats apart (4 KiB for 16 heads of 64): read in
     * place, a tile's rows all fall into the same few cache sets and evict each other. A BLAS
     * packs its operands itself and answers false.
     */
    abstract boolean packsKeyValues();

    /**
     * Copies a block of {@code rows} queries (row-major, {@code ldq}) into {@code qp[0, rows·d)},
     * strip after strip in the implementation's layout, and answers the factor that
     * {@link #scores} must still apply: 1 when the copy is already scaled by {@code scale},
     * {@code scale} when the product applies it.
     */
    abstract float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp);

    /**
     * Scores of a strip: {@code s[c·lds + r] = alpha·Σₜ qp(r, t)·k[kOff + c·ldk + t]} for c < nk,
     * r < w, where {@code qp(r, t)} is the strip's packed query at {@code qpOff} and {@code alpha}
     * what {@link #packQueries} answered.
     */
    abstract void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk,
                         float[] s, int lds);

    /**
     * Accumulates {@code acc(r, t) += Σ_c p[c·lds + r]·v[vOff + c·ldv + t]} for t < dv, r < w, with
     * {@code acc(r, t)} at {@code acc[accOff + r·accQueryStride(dv) + t·ldacc]} and
     * {@code ldacc = accColumnStride(w, bq)}.
     */
    abstract void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc,
                             int accOff, int ldacc);

    /**
     * Accumulates a key-major strip's transpose times a block of query rows, the backward pass's
     * key-side products ({@code dV += Pᵀ·dO}, {@code dK += scale·dSᵀ·Q}):
     * {@code c[cOff + i·ldc + t] += alpha·Σ_{r<w} p[i·lds + r]·b[bOff + r·ldb + t]} for key
     * {@code i < nk} and column {@code t < n}. Shapes: p nk×w key-major (the strip layout,
     * {@code lds = scoreStride(w)}), b w×n row-major, c nk×n row-major.
     */
    abstract void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                                 float[] c, int cOff, int ldc);

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
