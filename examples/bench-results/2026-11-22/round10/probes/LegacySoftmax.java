package io.sparkattention.kernel;
// Round 10 probe: VectorSoftmax as it was before round 10 (each pass over all queries, one vector at a
// time), with a score stride; accumulators with the queries side by side only.
import jdk.incubator.vector.*;
final class LegacySoftmax extends OnlineSoftmax {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED; static final int L = SPECIES.length();
    @Override void update(int w, int lds, int nk, float[] s, float[] m, float[] l, float[] alpha, int off, float[] acc, int accOff, int accQs, int accCs, int dv) {
        if (accQs != 1) throw new IllegalArgumentException();
        final int whole = VectorExp.wholeLanes(w);
        if (whole > 0) {
            newMax(whole, lds, nk, s, m, alpha, off);
            VectorExp.expShifted(alpha, off, 0, 1, m, off, whole, null, false);
            rescale(whole, l, alpha, off, acc, accOff, accCs, dv);
            VectorExp.expShifted(s, 0, lds, nk, m, off, whole, l, false);
        }
        for (int r = whole; r < w; r++) updateLane(r, lds, nk, s, m, l, off, acc, accOff, accQs, accCs, dv);
    }
    private static void newMax(int lanes, int w, int nk, float[] s, float[] m, float[] alpha, int off) {
        for (int r = 0; r < lanes; r += L) {
            FloatVector mx = FloatVector.fromArray(SPECIES, m, off + r);
            mx.intoArray(alpha, off + r);
            for (int c = 0, i = r; c < nk; c++, i += w) { FloatVector x = FloatVector.fromArray(SPECIES, s, i); mx = mx.blend(x, x.compare(VectorOperators.GT, mx)); }
            mx.intoArray(m, off + r);
        }
    }
    private static void rescale(int lanes, float[] l, float[] alpha, int off, float[] acc, int accOff, int ldacc, int dv) {
        for (int r = 0; r < lanes; r += L) {
            final FloatVector a = FloatVector.fromArray(SPECIES, alpha, off + r);
            FloatVector.fromArray(SPECIES, l, off + r).mul(a).intoArray(l, off + r);
            if (a.compare(VectorOperators.NE, 1f).anyTrue()) {
                for (int t = 0, i = accOff + r; t < dv; t++, i += ldacc) FloatVector.fromArray(SPECIES, acc, i).mul(a).intoArray(acc, i);
            }
        }
    }
    @Override void expMinus(int w, int lds, int nk, float[] s, float[] shift, int off) { throw new UnsupportedOperationException(); }
    @Override String name() { return "legacy-softmax"; }
}
