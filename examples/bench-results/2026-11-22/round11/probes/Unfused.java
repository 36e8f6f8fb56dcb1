package io.sparkattention.kernel;
// Round 11 probe: another TileOps with the row max left to the softmax's own pass (fusesRowMax false),
// for the before/after of the fused row max in one JVM.
final class Unfused extends TileOps {
    final TileOps inner;
    Unfused(TileOps inner) { super(inner.softmax()); this.inner = inner; }
    @Override int defaultQueryBlock() { return inner.defaultQueryBlock(); }
    @Override int defaultKeyBlock() { return inner.defaultKeyBlock(); }
    @Override int strip(int remaining, boolean edge) { return inner.strip(remaining, edge); }
    @Override int scoreStride(int w) { return inner.scoreStride(w); }
    @Override int accOffset(int r0, int bq, int dv) { return inner.accOffset(r0, bq, dv); }
    @Override int accQueryStride(int dv) { return inner.accQueryStride(dv); }
    @Override int accColumnStride(int w, int bq) { return inner.accColumnStride(w, bq); }
    @Override boolean packsKeyValues() { return inner.packsKeyValues(); }
    @Override float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) { return inner.packQueries(rows, d, scale, q, qOff, ldq, qp); }
    @Override void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s, int lds) { inner.scores(w, nk, d, alpha, qp, qpOff, k, kOff, ldk, s, lds); }
    @Override void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc, int accOff, int ldacc) { inner.accumulate(w, nk, dv, p, lds, v, vOff, ldv, acc, accOff, ldacc); }
    @Override public String name() { return "unfused:" + inner.name(); }
}
