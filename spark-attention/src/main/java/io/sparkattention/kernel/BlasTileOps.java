package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;

/**
 * Tile products through netlib BLAS {@code sgemm}, one call per product for the whole query block
 * (a strip is the block) except on edge tiles; the softmax passes are those given (vectorised when
 * the Vector API is visible). Packed queries are the scaled block, row-major {@code rows×d}; the
 * accumulator is the block's {@code Oᵀ}, {@code dv×bq}, whatever the strips.
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
    int accOffset(int r0, int bq, int dv) {
        return r0;
    }

    @Override
    int accStride(int w, int bq) {
        return bq;
    }

    @Override
    boolean packsKeyValues() {
        return false;
    }

    @Override
    void packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        for (int r = 0; r < rows; r++) {
            int src = qOff + r * ldq, dst = r * d;
            for (int t = 0; t < d; t++) {
                qp[dst + t] = scale * q[src + t];
            }
        }
    }

    @Override
    void scores(int w, int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
        // Column-major view: S(w×nk, ld w) = Qp(w×d) · Kᵀ(d×nk). Qp row-major reads as Qpᵀ ("T"),
        // K row-major as Kᵀ ("N"). S column-major is the key-major strip s[c·w + r].
        blas.sgemm("T", "N", w, nk, d, 1f, qp, qpOff, d, k, kOff, ldk, 0f, s, 0, w);
    }

    @Override
    void accumulate(int w, int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff,
                    int ldacc) {
        // Column-major view: O(w×dv, ld ldacc) += P(w×nk, ld w) · V(nk×dv); V row-major reads as Vᵀ ("T").
        blas.sgemm("N", "T", w, dv, nk, 1f, p, 0, w, v, vOff, ldv, 1f, acc, accOff, ldacc);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName() + "+" + softmax().name();
    }
}
