package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;

/**
 * Tile products through netlib BLAS {@code sgemm}, one call per product for the whole query block
 * (a strip is the block) except on edge tiles; the softmax passes are those given (vectorised when
 * the Vector API is visible).
 *
 * <p>Layouts: packed queries are the block's unscaled rows, {@code rows×d}, and the score product
 * applies the scale (its {@code alpha}); score tiles are key-major with keys
 * {@link Workspace#scoreStride} apart; the accumulator is the block's {@code O}, one row of
 * {@code dv} per query (the product writes it as {@code Oᵀ} column-major), so the rescale and the
 * final {@code O/ℓ} run along contiguous rows.
 */
final class BlasTileOps extends TileOps {

    /**
     * Queries per strip on tiles the band cuts through (the causal diagonal): each strip of 32
     * skips the keys after its own last query, so a diagonal 256×256 tile costs about 9/16 of a
     * tile instead of all of it (a 128×128 one 5/8), for eight (four) smaller sgemm calls.
     */
    static final int EDGE_STRIP = 32;

    private final BLAS blas;

    BlasTileOps(BLAS blas, OnlineSoftmax softmax) {
        super(softmax);
        this.blas = blas;
    }

    @Override
    int strip(int remaining, boolean edge) {
        return edge ? Math.min(remaining, EDGE_STRIP) : remaining;
    }

    @Override
    int scoreStride(int w) {
        return Workspace.scoreStride(w);
    }

    @Override
    int accOffset(int r0, int bq, int dv) {
        return r0 * dv;
    }

    @Override
    int accQueryStride(int dv) {
        return dv;
    }

    @Override
    int accColumnStride(int w, int bq) {
        return 1;
    }

    @Override
    boolean packsKeyValues() {
        return false;
    }

    /**
     * Row copies only: OpenBLAS packs its operands again anyway, and multiplying by the scale there
     * is free. Except for a scale of 0: a BLAS skips the product when alpha is 0, and NaN or ±∞ in
     * Q or K would no longer reach the output, so the copy is scaled then (0·NaN = NaN, as on the
     * other paths). Scaling after the product can overflow where scaling first would not, for
     * |q·k| between Float.MAX_VALUE and Float.MAX_VALUE/scale (entries near 10¹⁸ at d = 64).
     */
    @Override
    float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        if (scale == 0f) {
            for (int r = 0; r < rows; r++) {
                for (int t = 0, src = qOff + r * ldq, dst = r * d; t < d; t++) {
                    qp[dst + t] = scale * q[src + t];
                }
            }
            return 1f;
        }
        for (int r = 0; r < rows; r++) {
            System.arraycopy(q, qOff + r * ldq, qp, r * d, d);
        }
        return scale;
    }

    @Override
    void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s,
                int lds) {
        // Column-major view: S(w×nk, ld lds) = alpha·Qp(w×d)·Kᵀ(d×nk). Qp row-major reads as Qpᵀ ("T"),
        // K row-major as Kᵀ ("N"). S column-major is the key-major strip s[c·lds + r].
        blas.sgemm("T", "N", w, nk, d, alpha, qp, qpOff, d, k, kOff, ldk, 0f, s, 0, lds);
    }

    /** {@code ldacc} (the column stride) is 1 here; the product's leading dimension is the query stride, dv. */
    @Override
    void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc, int accOff,
                    int ldacc) {
        // Column-major view: Oᵀ(dv×w, ld dv) += Vᵀ(dv×nk)·Pᵀ(nk×w). V row-major reads as Vᵀ ("N");
        // the key-major strip reads as P(w×nk, ld lds), so "T".
        blas.sgemm("N", "T", dv, w, nk, 1f, v, vOff, ldv, p, 0, lds, 1f, acc, accOff, dv);
    }

    @Override
    void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                        float[] c, int cOff, int ldc) {
        // Column-major view: Cᵀ(n×nk, ld ldc) += alpha·Bᵀ(n×w)·Pᵀ(w×nk). B row-major reads as Bᵀ
        // ("N"); the key-major strip reads as Pᵀ(w×nk, ld lds), so "N" too.
        blas.sgemm("N", "N", n, nk, w, alpha, b, bOff, ldb, p, 0, lds, 1f, c, cOff, ldc);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName() + "+" + softmax().name();
    }
}
