package io.sparkattention.kernel;
// Round 10 probe: the blas tile arithmetic as it was before round 10 (scaled query copy, score keys w
// apart unless pad, accumulator Oᵀ with the queries side by side), on today's TileOps API.
import dev.ludovic.netlib.blas.BLAS;
final class BlasTileOpsLegacy extends TileOps {
    private final BLAS blas; private final boolean pad;
    BlasTileOpsLegacy(BLAS blas, OnlineSoftmax softmax, boolean pad) { super(softmax); this.blas = blas; this.pad = pad; }
    @Override int strip(int remaining, boolean edge) { return edge ? Math.min(remaining, 32) : remaining; }
    @Override int scoreStride(int w) { return pad ? Workspace.scoreStride(w) : w; }
    @Override int accOffset(int r0, int bq, int dv) { return r0; }
    @Override int accQueryStride(int dv) { return 1; }
    @Override int accColumnStride(int w, int bq) { return bq; }
    @Override boolean packsKeyValues() { return false; }
    @Override float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        for (int r = 0; r < rows; r++) { int src = qOff + r * ldq, dst = r * d; for (int t = 0; t < d; t++) qp[dst + t] = scale * q[src + t]; }
        return 1f;
    }
    @Override void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s, int lds) {
        blas.sgemm("T", "N", w, nk, d, alpha, qp, qpOff, d, k, kOff, ldk, 0f, s, 0, lds);
    }
    @Override void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc, int accOff, int ldacc) {
        blas.sgemm("N", "T", w, dv, nk, 1f, p, 0, lds, v, vOff, ldv, 1f, acc, accOff, ldacc);
    }
    @Override public String name() { return "legacy" + (pad ? "-pad" : ""); }
}
