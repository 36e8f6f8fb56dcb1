package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link OnlineSoftmax} on the Vector API: {@code L} queries per vector (L = 8 with AVX2, 16 with
 * AVX-512), each pass one vector load per key, {@link VectorExp} instead of {@link Math#exp}.
 * Queries past the last whole vector take the scalar lane path.
 *
 * <p>The update is four passes, each a method that takes and returns arrays only (see
 * {@link VectorExp} for why no vector may cross a call): the new max (old max kept in α's
 * array), α = exp(m_old − m_new), the rescaling of ℓ and O by α, and P = exp(s − m_new) with its
 * sum added to ℓ. Rescaling ℓ before adding the new terms is the same arithmetic as
 * {@code ℓ·α + Σ P}.
 */
final class VectorSoftmax extends OnlineSoftmax {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int L = SPECIES.length();

    @Override
    void update(int w, int nk, float[] s, float[] m, float[] l, float[] alpha, int off, float[] acc, int accOff,
                int ldacc, int dv) {
        final int whole = VectorExp.wholeLanes(w);
        if (whole > 0) {
            newMax(whole, w, nk, s, m, alpha, off);
            VectorExp.expShifted(alpha, off, 0, 1, m, off, whole, null, false);
            rescale(whole, l, alpha, off, acc, accOff, ldacc, dv);
            VectorExp.expShifted(s, 0, w, nk, m, off, whole, l, false);
        }
        for (int r = whole; r < w; r++) {
            updateLane(r, w, nk, s, m, l, off, acc, accOff, ldacc, dv);
        }
    }

    /**
     * Queries {@code [0, lanes)}: {@code alpha = m} (the old max), {@code m = max(m, max_c s)}.
     * "Greater than" never picks NaN (see {@link #updateLane}).
     */
    private static void newMax(int lanes, int w, int nk, float[] s, float[] m, float[] alpha, int off) {
        for (int r = 0; r < lanes; r += L) {
            FloatVector mx = FloatVector.fromArray(SPECIES, m, off + r);
            mx.intoArray(alpha, off + r);
            for (int c = 0, i = r; c < nk; c++, i += w) {
                FloatVector x = FloatVector.fromArray(SPECIES, s, i);
                mx = mx.blend(x, x.compare(VectorOperators.GT, mx));
            }
            mx.intoArray(m, off + r);
        }
    }

    /** Queries {@code [0, lanes)}: {@code ℓ *= α}, and {@code O *= α} for each vector of queries unless all its α are 1. */
    private static void rescale(int lanes, float[] l, float[] alpha, int off, float[] acc, int accOff, int ldacc,
                                int dv) {
        for (int r = 0; r < lanes; r += L) {
            final FloatVector a = FloatVector.fromArray(SPECIES, alpha, off + r);
            FloatVector.fromArray(SPECIES, l, off + r).mul(a).intoArray(l, off + r);
            if (a.compare(VectorOperators.NE, 1f).anyTrue()) {
                for (int t = 0, i = accOff + r; t < dv; t++, i += ldacc) {
                    FloatVector.fromArray(SPECIES, acc, i).mul(a).intoArray(acc, i);
                }
            }
        }
    }

    @Override
    void expMinus(int w, int nk, float[] s, float[] shift, int off) {
        final int whole = VectorExp.wholeLanes(w);
        VectorExp.expShifted(s, 0, w, nk, shift, off, whole, null, true);
        for (int r = whole; r < w; r++) {
            expMinusLane(r, w, nk, s, shift, off);
        }
    }

    @Override
    String name() {
        return "vector-exp";
    }
}
