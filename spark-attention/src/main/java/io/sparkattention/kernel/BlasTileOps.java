package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;

/** Tile products through netlib BLAS {@code sgemm}; softmax passes in plain Java. */
final class BlasTileOps extends TileOps {

    private final BLAS blas;

    BlasTileOps(BLAS blas) {
        this.blas = blas;
    }

    @Override
    void scores(int bq, int bk, int d, float scale, float[] q, int qOff, int ldq,
                float[] k, int kOff, int ldk, float[] s, int lds) {
        // Column-major view: Sᵀ(bk×bq) = K(bk×d) · Qᵀ(d×bq); K row-major reads as Kᵀ, hence "T".
        blas.sgemm("T", "N", bk, bq, d, scale, k, kOff, ldk, q, qOff, ldq, 0f, s, 0, lds);
    }

    @Override
    void accumulate(int bq, int bk, int dv, float[] p, int ldp, float[] v, int vOff, int ldv,
                    float[] acc, int ldacc) {
        // Column-major view: accᵀ(dv×bq) += Vᵀ(dv×bk) · Pᵀ(bk×bq); both read as stored, hence "N".
        blas.sgemm("N", "N", dv, bq, bk, 1f, v, vOff, ldv, p, 0, ldp, 1f, acc, 0, ldacc);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName();
    }
}
