package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Shifted {@code exp} down the columns of a key-major strip, for the softmax passes.
 *
 * <p>Cephes-style range reduction: {@code eˣ = 2ⁿ·eʳ} with {@code n = round(x·log₂e)} and
 * {@code r = x − n·ln2 ∈ [−ln2/2, ln2/2]} (ln2 split in two parts so {@code n·ln2_hi} is exact),
 * {@code eʳ} by a degree-5 polynomial with constant term exactly 1 (so {@code e⁰ = 1} exactly and
 * the online softmax sees "max unchanged" as α = 1), fitted for minimax relative error on that
 * interval, and {@code 2ⁿ} built in the exponent bits. 13 vector operations (9 of them FMAs);
 * relative error below 2·10⁻⁷ (a couple of ulp) in float32 over the normal range, far inside the
 * kernel's 1e-5 bound.
 *
 * <p>Edges: NaN → NaN; −∞ and every {@code x ≤ −87.68} → +0 (the true values are below
 * 2^−126.5 ≈ 8·10⁻³⁹, subnormal: flushed); {@code x ≥ 88.38} → +∞ when asked to cap the top
 * of the range. The online softmax does not ask (its arguments {@code s − max} are never
 * positive: two operations fewer per vector); weights from a caller's log-sum-exp do.
 *
 * <p><b>Why arrays in, arrays out.</b> Every vector lives and dies inside {@link #expShifted}: no
 * {@code FloatVector} is ever passed to or returned from a method of ours. When C2 compiles a
 * large caller (the kernel's tile loop inlines the softmax) it stops inlining at
 * {@code NodeCountInliningCutoff}, and a vector that crosses a call that was not inlined is boxed:
 * a heap object per vector, measured at 16 MiB of garbage per n = 1024 forward pass and twice the
 * time. A method that takes and returns arrays costs at worst one call per strip when it is not
 * inlined, and the JDK's own vector methods are always force-inlined.
 */
final class VectorExp {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int L = SPECIES.length();

    /** Below this, n would leave the exponent range: the result is 0 (n = −127 gives 0 bits). */
    private static final float LOWEST = -88.37f;
    /** Above this, n = 128 gives the infinity bit pattern; larger n would overflow into the sign bit. */
    private static final float HIGHEST = 88.72f;
    private static final float LOG2E = 1.44269504088896341f;
    /** 1.5·2²³: adding and subtracting it rounds a float of magnitude below 2²² to an integer. */
    private static final float ROUND = 12582912f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    // eʳ ≈ 1 + C1·r + C2·r² + C3·r³ + C4·r⁴ + C5·r⁵ on [−ln2/2, ln2/2]: relative error 9·10⁻⁸ in
    // exact arithmetic, 1.7·10⁻⁷ evaluated by Horner in float32 (iteratively reweighted least squares).
    private static final float C1 = 9.999997020e-01f;
    private static final float C2 = 4.999915063e-01f;
    private static final float C3 = 1.666763574e-01f;
    private static final float C4 = 4.189793020e-02f;
    private static final float C5 = 8.290314116e-03f;
    private static final int EXPONENT_BIAS = 127 << 23;

    private VectorExp() {
    }

    /** Lanes handled by {@link #expShifted}: the strip width rounded down to whole vectors. */
    static int wholeLanes(int w) {
        return SPECIES.loopBound(w);
    }

    /**
     * For the queries {@code j < lanes} (a multiple of the vector length) and keys {@code c < nk}:
     * {@code a[aOff + c·lds + j] ← exp(a[aOff + c·lds + j] − shift_j)} with {@code shift_j =
     * x[xOff + j]}, or 0 where that is −∞ (a query that has seen nothing: its terms are
     * {@code exp(−∞) = 0}, not NaN). With {@code sum ≠ null}, also {@code sum[xOff + j] += Σ_c} of
     * the new values. With {@code capHigh}, arguments above 88.72 give +∞ (otherwise they must not
     * occur).
     *
     * <p>Shapes: {@code a} key-major, nk keys {@code lds} apart (queries side by side);
     * {@code x} and {@code sum} one value per query.
     */
    static void expShifted(float[] a, int aOff, int lds, int nk, float[] x, int xOff, int lanes, float[] sum,
                           boolean capHigh) {
        final FloatVector minusLn2Hi = FloatVector.broadcast(SPECIES, -LN2_HI);
        final FloatVector minusLn2Lo = FloatVector.broadcast(SPECIES, -LN2_LO);
        final FloatVector c3 = FloatVector.broadcast(SPECIES, C3), c2 = FloatVector.broadcast(SPECIES, C2);
        final FloatVector c1 = FloatVector.broadcast(SPECIES, C1), one = FloatVector.broadcast(SPECIES, 1f);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SPECIES, x, xOff + j);
            shift = shift.blend(0f, shift.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
            FloatVector total = FloatVector.zero(SPECIES);
            for (int c = 0, i = aOff + j; c < nk; c++, i += lds) {
                FloatVector v = FloatVector.fromArray(SPECIES, a, i).sub(shift);
                // Compare-and-blend keeps NaN (every comparison with NaN is false), unlike a min/max clamp.
                v = v.blend(LOWEST, v.compare(VectorOperators.LT, LOWEST));
                if (capHigh) {  // loop-invariant: C2 unswitches the loop on it
                    v = v.blend(HIGHEST, v.compare(VectorOperators.GT, HIGHEST));
                }
                FloatVector t = v.fma(LOG2E, ROUND);                // ROUND + n, n = round(v·log₂e)
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(minusLn2Hi, v);               // r = v − n·ln2: n·ln2_hi is exact
                r = n.fma(minusLn2Lo, r);
                FloatVector y = r.fma(C5, C4);                      // Horner: ((((C5·r + C4)·r + C3)·r + C2)·r + C1)·r + 1
                y = y.fma(r, c3);
                y = y.fma(r, c2);
                y = y.fma(r, c1);
                y = y.fma(r, one);
                // 2ⁿ: the low bits of t hold n; shifted into the exponent field and biased.
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(EXPONENT_BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            if (sum != null) {
                FloatVector.fromArray(SPECIES, sum, xOff + j).add(total).intoArray(sum, xOff + j);
            }
        }
    }
}
