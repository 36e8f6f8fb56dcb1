package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link OnlineSoftmax} on the Vector API: {@code LANES} queries per vector (LANES = 8 with AVX2, 16 with
 * AVX-512), each pass one vector load per key, {@link VectorExp} instead of {@link Math#exp}.
 * Queries past the last whole vector take the scalar lane path.
 *
 * <p>The update runs group by group, a group being {@link #G} = 2·LANES queries (64 bytes of each key's
 * scores with AVX2), and finishes every pass for a group before the next: the new max (old max
 * kept in α's array; two vectors, keys split even and odd, so four independent compare chains),
 * α = exp(m_old − m_new), the rescaling of ℓ and O by α, and P = exp(s − m_new) with its sum
 * added to ℓ. A group's nk rows of 64 bytes are then read by the max pass and again by the exp
 * pass while they are still in L1, which the padded score stride ({@link Workspace#scoreStride})
 * allows: with keys 1 KiB apart they would map to 4 of L1's 64 sets. Rescaling ℓ before adding
 * the new terms is the same arithmetic as {@code ℓ·α + Σ P}.
 *
 * <p>Each pass is a method that takes and returns arrays only (see {@link VectorExp} for why no
 * vector may cross a call).
 */
final class VectorSoftmax extends OnlineSoftmax {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    /** Queries per group: two vectors. */
    private static final int G = 2 * LANES;

    @Override
    void update(int w, int lds, int nk, float[] s, float[] m, float[] l, float[] alpha, int off, float[] acc,
                int accOff, int accQs, int accCs, int dv) {
        int r = 0;
        for (; r + G <= w; r += G) {
            groupMax(r, lds, nk, s, m, alpha, off);
            fold(r, G, lds, nk, s, m, l, alpha, off, acc, accOff, accQs, accCs, dv);
        }
        for (; r + LANES <= w; r += LANES) {
            vectorMax(r, lds, nk, s, m, alpha, off);
            fold(r, LANES, lds, nk, s, m, l, alpha, off, acc, accOff, accQs, accCs, dv);
        }
        for (; r < w; r++) {
            updateLane(r, lds, nk, s, m, l, off, acc, accOff, accQs, accCs, dv);
        }
    }

    /** Queries {@code [r, r + lanes)} after their new max: α, the rescale of ℓ and O, then P and its sum. */
    private static void fold(int r, int lanes, int lds, int nk, float[] s, float[] m, float[] l, float[] alpha,
                             int off, float[] acc, int accOff, int accQs, int accCs, int dv) {
        VectorExp.expShifted(alpha, off + r, 0, 1, m, off + r, lanes, null, false);
        if (accQs == 1) {
            rescaleAcross(r, lanes, l, alpha, off, acc, accOff + r, accCs, dv);
        } else {
            rescaleAlong(r, lanes, l, alpha, off, acc, accOff + r * accQs, accQs, dv);
        }
        VectorExp.expShifted(s, r, lds, nk, m, off + r, lanes, l, false);
    }

    /**
     * Queries {@code [r, r + G)}: {@code alpha = m} (the old max), {@code m = max(m, max_c s)}.
     * "Greater than" never picks NaN (see {@link #updateLane}).
     */
    private static void groupMax(int r, int lds, int nk, float[] s, float[] m, float[] alpha, int off) {
        final int j = off + r;
        FloatVector a0 = FloatVector.fromArray(SPECIES, m, j), a1 = FloatVector.fromArray(SPECIES, m, j + LANES);
        a0.intoArray(alpha, j);
        a1.intoArray(alpha, j + LANES);
        FloatVector b0 = a0, b1 = a1;
        int c = 0, i = r;
        for (; c + 1 < nk; c += 2, i += 2 * lds) {
            final FloatVector x0 = FloatVector.fromArray(SPECIES, s, i), x1 = FloatVector.fromArray(SPECIES, s, i + LANES);
            final FloatVector y0 = FloatVector.fromArray(SPECIES, s, i + lds);
            final FloatVector y1 = FloatVector.fromArray(SPECIES, s, i + lds + LANES);
            a0 = a0.blend(x0, x0.compare(VectorOperators.GT, a0));
            a1 = a1.blend(x1, x1.compare(VectorOperators.GT, a1));
            b0 = b0.blend(y0, y0.compare(VectorOperators.GT, b0));
            b1 = b1.blend(y1, y1.compare(VectorOperators.GT, b1));
        }
        if (c < nk) {
            final FloatVector x0 = FloatVector.fromArray(SPECIES, s, i), x1 = FloatVector.fromArray(SPECIES, s, i + LANES);
            a0 = a0.blend(x0, x0.compare(VectorOperators.GT, a0));
            a1 = a1.blend(x1, x1.compare(VectorOperators.GT, a1));
        }
        a0.blend(b0, b0.compare(VectorOperators.GT, a0)).intoArray(m, j);
        a1.blend(b1, b1.compare(VectorOperators.GT, a1)).intoArray(m, j + LANES);
    }

    /** {@link #groupMax} for the one vector of queries {@code [r, r + LANES)}. */
    private static void vectorMax(int r, int lds, int nk, float[] s, float[] m, float[] alpha, int off) {
        FloatVector mx = FloatVector.fromArray(SPECIES, m, off + r);
        mx.intoArray(alpha, off + r);
        for (int c = 0, i = r; c < nk; c++, i += lds) {
            final FloatVector x = FloatVector.fromArray(SPECIES, s, i);
            mx = mx.blend(x, x.compare(VectorOperators.GT, mx));
        }
        mx.intoArray(m, off + r);
    }

    /**
     * Queries side by side in the accumulator ({@code acc[a + t·accCs + j]}): {@code ℓ *= α} and
     * {@code O *= α} a vector of queries at a time, skipped where all its α are 1.
     */
    private static void rescaleAcross(int r, int lanes, float[] l, float[] alpha, int off, float[] acc, int a,
                                      int accCs, int dv) {
        for (int j = 0; j < lanes; j += LANES) {
            final FloatVector f = FloatVector.fromArray(SPECIES, alpha, off + r + j);
            FloatVector.fromArray(SPECIES, l, off + r + j).mul(f).intoArray(l, off + r + j);
            if (f.compare(VectorOperators.NE, 1f).anyTrue()) {
                for (int t = 0, i = a + j; t < dv; t++, i += accCs) {
                    FloatVector.fromArray(SPECIES, acc, i).mul(f).intoArray(acc, i);
                }
            }
        }
    }

    /**
     * One accumulator row per query ({@code acc[a + j·accQs + t]}): {@code ℓ *= α}, and each row
     * whose α is not 1 scaled along its dv values.
     */
    private static void rescaleAlong(int r, int lanes, float[] l, float[] alpha, int off, float[] acc, int a,
                                     int accQs, int dv) {
        final int whole = SPECIES.loopBound(dv);
        for (int j = 0; j < lanes; j += LANES) {
            FloatVector.fromArray(SPECIES, l, off + r + j).mul(FloatVector.fromArray(SPECIES, alpha, off + r + j))
                .intoArray(l, off + r + j);
        }
        for (int j = 0, row = a; j < lanes; j++, row += accQs) {
            final float f = alpha[off + r + j];
            if (f == 1f) {
                continue;
            }
            int t = 0;
            for (; t < whole; t += LANES) {
                FloatVector.fromArray(SPECIES, acc, row + t).mul(f).intoArray(acc, row + t);
            }
            for (; t < dv; t++) {
                acc[row + t] *= f;
            }
        }
    }

    @Override
    void expMinus(int w, int lds, int nk, float[] s, float[] shift, int off) {
        final int whole = VectorExp.wholeLanes(w);
        VectorExp.expShifted(s, 0, lds, nk, shift, off, whole, null, true);
        for (int r = whole; r < w; r++) {
            expMinusLane(r, lds, nk, s, shift, off);
        }
    }

    @Override
    String name() {
        return "vector-exp";
    }
}
