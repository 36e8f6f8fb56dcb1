package io.sparkattention.kernel;

/** Counts score tiles computed, to see which tiles the kernel skips; may answer another default query block. */
final class CountingOps extends TileOps {

    final TileOps inner;
    final int queryBlock;
    int tiles;

    CountingOps(TileOps inner) {
        this(inner, inner.defaultQueryBlock());
    }

    CountingOps(TileOps inner, int queryBlock) {
        super(inner.softmax());
        this.inner = inner;
        this.queryBlock = queryBlock;
    }

    @Override
    int defaultQueryBlock() {
        return queryBlock;
    }

    @Override
    int defaultKeyBlock() {
        return inner.defaultKeyBlock();
    }

    /** Never narrower on edge tiles: one scores call per visited tile, so calls count tiles. */
    @Override
    int strip(int remaining, boolean edge) {
        return inner.strip(remaining, false);
    }

    @Override
    int scoreStride(int w) {
        return inner.scoreStride(w);
    }

    @Override
    int accOffset(int r0, int bq, int dv) {
        return inner.accOffset(r0, bq, dv);
    }

    @Override
    int accQueryStride(int dv) {
        return inner.accQueryStride(dv);
    }

    @Override
    int accColumnStride(int w, int bq) {
        return inner.accColumnStride(w, bq);
    }

    @Override
    boolean packsKeyValues() {
        return inner.packsKeyValues();
    }

    @Override
    float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        return inner.packQueries(rows, d, scale, q, qOff, ldq, qp);
    }

    @Override
    void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s,
                int lds) {
        tiles++;
        inner.scores(w, nk, d, alpha, qp, qpOff, k, kOff, ldk, s, lds);
    }

    @Override
    void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc,
                    int accOff, int ldacc) {
        inner.accumulate(w, nk, dv, p, lds, v, vOff, ldv, acc, accOff, ldacc);
    }

    @Override
    void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                        float[] c, int cOff, int ldc) {
        inner.accumulateKeys(w, nk, n, alpha, p, lds, b, bOff, ldb, c, cOff, ldc);
    }

    @Override
    public String name() {
        return "counting";
    }
}
