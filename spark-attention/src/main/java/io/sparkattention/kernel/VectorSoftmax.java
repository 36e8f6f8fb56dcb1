package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
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
    void update(int w, int nk, float[] s, float[] m, float[] l, int off, float[] acc, int accOff, int ldacc, int dv) {
        if (w == 2 * L) {
            rescalePair(nk, s, m, l, off, acc, accOff, ldacc, dv);
            expPair(nk, s, m, l, off);
            return;
        }
        final int whole = SPECIES.loopBound(w);
        for (int r = 0; r < whole; r += L) {
            rescale(r, w, nk, s, m, l, off, acc, accOff, ldacc, dv);
            exp(r, w, nk, s, m, l, off);
        }
        for (int r = whole; r < w; r++) {
            updateLane(r, w, nk, s, m, l, off, acc, accOff, ldacc, dv);
        }
    }

    // The update runs as two passes, each its own method with array arguments only: one method
    // with all four vector exps inlined outgrows C2's inlining budget (NodeCountInliningCutoff),
    // and a vector that crosses a call that was not inlined is boxed, which measured 40% of the
    // kernel's time. Rescaling ℓ and O by α before adding the new terms is the same arithmetic.

    /**
     * (a) Queries {@code [r, r + L)}: {@code m_new = max(m, max_c s)}, {@code α = exp(m − m_new)}
     * (with the shift 0 while nothing is visible), {@code ℓ *= α}, {@code O *= α} unless every α
     * is 1, {@code m = m_new}. "Greater than" never picks NaN (see {@link #updateLane}).
     */
    private static void rescale(int r, int w, int nk, float[] s, float[] m, float[] l, int off,
                                float[] acc, int accOff, int ldacc, int dv) {
        final FloatVector mOld = FloatVector.fromArray(SPECIES, m, off + r);
        FloatVector mx = mOld;
        for (int c = 0, i = r; c < nk; c++, i += w) {
            FloatVector x = FloatVector.fromArray(SPECIES, s, i);
            mx = mx.blend(x, x.compare(VectorOperators.GT, mx));
        }
        final FloatVector alpha = VectorExp.expNonPositive(mOld.sub(shift(mx)));
        FloatVector.fromArray(SPECIES, l, off + r).mul(alpha).intoArray(l, off + r);
        mx.intoArray(m, off + r);
        if (alpha.compare(VectorOperators.NE, 1f).anyTrue()) {
            for (int t = 0, i = accOff + r; t < dv; t++, i += ldacc) {
                FloatVector.fromArray(SPECIES, acc, i).mul(alpha).intoArray(acc, i);
            }
        }
    }

    /** (b) Queries {@code [r, r + L)}: {@code P = exp(s − m)} (shift 0 while nothing is visible), {@code ℓ += Σ_c P}. */
    private static void exp(int r, int w, int nk, float[] s, float[] m, float[] l, int off) {
        final FloatVector shift = shift(FloatVector.fromArray(SPECIES, m, off + r));
        FloatVector sum = FloatVector.zero(SPECIES);
        for (int c = 0, i = r; c < nk; c++, i += w) {
            FloatVector e = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i).sub(shift));
            e.intoArray(s, i);
            sum = sum.add(e);
        }
        FloatVector.fromArray(SPECIES, l, off + r).add(sum).intoArray(l, off + r);
    }

    /** {@link #rescale} for a two-vector strip: both vectors of a key row per step (whole 64-byte rows with AVX2). */
    private static void rescalePair(int nk, float[] s, float[] m, float[] l, int off, float[] acc, int accOff, int ldacc,
                                    int dv) {
        final int w = 2 * L;
        final FloatVector mOld0 = FloatVector.fromArray(SPECIES, m, off);
        final FloatVector mOld1 = FloatVector.fromArray(SPECIES, m, off + L);
        FloatVector mx0 = mOld0, mx1 = mOld1;
        for (int c = 0, i = 0; c < nk; c++, i += w) {
            FloatVector x0 = FloatVector.fromArray(SPECIES, s, i);
            FloatVector x1 = FloatVector.fromArray(SPECIES, s, i + L);
            mx0 = mx0.blend(x0, x0.compare(VectorOperators.GT, mx0));
            mx1 = mx1.blend(x1, x1.compare(VectorOperators.GT, mx1));
        }
        final FloatVector alpha0 = VectorExp.expNonPositive(mOld0.sub(shift(mx0)));
        final FloatVector alpha1 = VectorExp.expNonPositive(mOld1.sub(shift(mx1)));
        FloatVector.fromArray(SPECIES, l, off).mul(alpha0).intoArray(l, off);
        FloatVector.fromArray(SPECIES, l, off + L).mul(alpha1).intoArray(l, off + L);
        mx0.intoArray(m, off);
        mx1.intoArray(m, off + L);
        if (alpha0.compare(VectorOperators.NE, 1f).or(alpha1.compare(VectorOperators.NE, 1f)).anyTrue()) {
            for (int t = 0, i = accOff; t < dv; t++, i += ldacc) {
                FloatVector.fromArray(SPECIES, acc, i).mul(alpha0).intoArray(acc, i);
                FloatVector.fromArray(SPECIES, acc, i + L).mul(alpha1).intoArray(acc, i + L);
            }
        }
    }

    /** {@link #exp} for a two-vector strip. */
    private static void expPair(int nk, float[] s, float[] m, float[] l, int off) {
        final int w = 2 * L;
        final FloatVector shift0 = shift(FloatVector.fromArray(SPECIES, m, off));
        final FloatVector shift1 = shift(FloatVector.fromArray(SPECIES, m, off + L));
        FloatVector sum0 = FloatVector.zero(SPECIES), sum1 = sum0;
        for (int c = 0, i = 0; c < nk; c++, i += w) {
            FloatVector e0 = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i).sub(shift0));
            FloatVector e1 = VectorExp.expNonPositive(FloatVector.fromArray(SPECIES, s, i + L).sub(shift1));
            e0.intoArray(s, i);
            e1.intoArray(s, i + L);
            sum0 = sum0.add(e0);
            sum1 = sum1.add(e1);
        }
        FloatVector.fromArray(SPECIES, l, off).add(sum0).intoArray(l, off);
        FloatVector.fromArray(SPECIES, l, off + L).add(sum1).intoArray(l, off + L);
    }

    /** The exp shift of a running max: the max, or 0 where it is −∞ (nothing visible: P = 0, α = 0). */
    private static FloatVector shift(FloatVector max) {
        return max.blend(0f, max.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
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
