package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link OnlineSoftmax} on the Vector API: {@code L} queries per vector (L = 8 with AVX2, 16 with
 * AVX-512), each pass one vector load per key, {@link VectorExp} instead of {@link Math#exp}.
 * Queries past the last whole vector take the scalar lane path.
 */
final class VectorSoftmax extends OnlineSoftmax {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int L = SPECIES.length();

    @Override
    void update(int w, int nk, float[] s, float[] m, float[] l, int off, float[] acc, int accOff, int dv) {
        if (w == 2 * L) {
            updatePair(nk, s, m, l, off, acc, accOff, dv);
            return;
        }
        final int whole = SPECIES.loopBound(w);
        for (int r = 0; r < whole; r += L) {
            final FloatVector mOld = FloatVector.fromArray(SPECIES, m, off + r);
            // (a) m_new = max(m_old, max_c s): "greater than" never picks NaN (see updateLane)
            FloatVector mx = mOld;
            for (int c = 0, i = r; c < nk; c++, i += w) {
                FloatVector x = FloatVector.fromArray(SPECIES, s, i);
                mx = mx.blend(x, x.compare(VectorOperators.GT, mx));
            }
            final FloatVector shift = mx.blend(0f, mx.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
            // (b) P = exp(s − shift), row sums
            FloatVector sum = FloatVector.zero(SPECIES);
            for (int c = 0, i = r; c < nk; c++, i += w) {
                FloatVector e = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i).sub(shift));
                e.intoArray(s, i);
                sum = sum.add(e);
            }
            // (c) ℓ = ℓ·α + Σ P, m = m_new, O *= α (skipped when no max moved)
            final FloatVector alpha = VectorExp.expNonPositive(mOld.sub(shift));
            FloatVector.fromArray(SPECIES, l, off + r).fma(alpha, sum).intoArray(l, off + r);
            mx.intoArray(m, off + r);
            VectorMask<Float> moved = alpha.compare(VectorOperators.NE, 1f);
            if (moved.anyTrue()) {
                for (int t = 0, i = accOff + r; t < dv; t++, i += w) {
                    FloatVector.fromArray(SPECIES, acc, i).mul(alpha).intoArray(acc, i);
                }
            }
        }
        for (int r = whole; r < w; r++) {
            updateLane(r, w, nk, s, m, l, off, acc, accOff, dv);
        }
    }

    /**
     * {@link #update} for the Vector tile path's two-vector strips: both vectors of a key row in
     * one pass, so each pass reads whole 2·L-float rows once (a cache line with AVX2).
     */
    private static void updatePair(int nk, float[] s, float[] m, float[] l, int off, float[] acc, int accOff, int dv) {
        final int w = 2 * L;
        final FloatVector mOld0 = FloatVector.fromArray(SPECIES, m, off);
        final FloatVector mOld1 = FloatVector.fromArray(SPECIES, m, off + L);
        // (a) m_new = max(m_old, max_c s)
        FloatVector mx0 = mOld0, mx1 = mOld1;
        for (int c = 0, i = 0; c < nk; c++, i += w) {
            FloatVector x0 = FloatVector.fromArray(SPECIES, s, i);
            FloatVector x1 = FloatVector.fromArray(SPECIES, s, i + L);
            mx0 = mx0.blend(x0, x0.compare(VectorOperators.GT, mx0));
            mx1 = mx1.blend(x1, x1.compare(VectorOperators.GT, mx1));
        }
        final FloatVector shift0 = mx0.blend(0f, mx0.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
        final FloatVector shift1 = mx1.blend(0f, mx1.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
        // (b) P = exp(s − shift), row sums
        FloatVector sum0 = FloatVector.zero(SPECIES), sum1 = sum0;
        for (int c = 0, i = 0; c < nk; c++, i += w) {
            FloatVector e0 = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i).sub(shift0));
            FloatVector e1 = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i + L).sub(shift1));
            e0.intoArray(s, i);
            e1.intoArray(s, i + L);
            sum0 = sum0.add(e0);
            sum1 = sum1.add(e1);
        }
        // (c) ℓ = ℓ·α + Σ P, m = m_new, O *= α (skipped when no max moved)
        final FloatVector alpha0 = VectorExp.expNonPositive(mOld0.sub(shift0));
        final FloatVector alpha1 = VectorExp.expNonPositive(mOld1.sub(shift1));
        FloatVector.fromArray(SPECIES, l, off).fma(alpha0, sum0).intoArray(l, off);
        FloatVector.fromArray(SPECIES, l, off + L).fma(alpha1, sum1).intoArray(l, off + L);
        mx0.intoArray(m, off);
        mx1.intoArray(m, off + L);
        if (alpha0.compare(VectorOperators.NE, 1f).or(alpha1.compare(VectorOperators.NE, 1f)).anyTrue()) {
            for (int t = 0, i = accOff; t < dv; t++, i += w) {
                FloatVector.fromArray(SPECIES, acc, i).mul(alpha0).intoArray(acc, i);
                FloatVector.fromArray(SPECIES, acc, i + L).mul(alpha1).intoArray(acc, i + L);
            }
        }
    }

    @Override
    void expMinus(int w, int nk, float[] s, float[] shift, int off) {
        final int whole = SPECIES.loopBound(w);
        for (int r = 0; r < whole; r += L) {
            final FloatVector x = FloatVector.fromArray(SPECIES, shift, off + r);
            for (int c = 0, i = r; c < nk; c++, i += w) {
                VectorExp.exp(FloatVector.fromArray(SPECIES, s, i).sub(x)).intoArray(s, i);
            }
        }
        for (int r = whole; r < w; r++) {
            expMinusLane(r, w, nk, s, shift, off);
        }
    }

    @Override
    String name() {
        return "vector-exp";
    }
}
