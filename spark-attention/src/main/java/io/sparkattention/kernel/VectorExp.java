package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * {@code exp} on a whole vector of floats, for the softmax passes.
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
 * 2^−126.5 ≈ 8·10⁻³⁹, subnormal: flushed); {@code x ≥ 88.38} → +∞ ({@link Math#exp} overflows
 * only at 88.72; softmax arguments are never positive). {@link #expNonPositive} skips the upper
 * clamp and requires {@code x ≤ 0} or NaN, which every softmax argument {@code s − max} is.
 */
final class VectorExp {

    /** Below this, n would leave the exponent range: the result is 0 (n = −127 gives 0 bits). */
    private static final float LOWEST = -88.37f;
    /** Above this, n = 128 gives the infinity bit pattern. */
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

    /** {@code eˣ} lane by lane, any x (see the class comment for the edges). */
    static FloatVector exp(FloatVector x) {
        return expNonPositive(x.blend(HIGHEST, x.compare(VectorOperators.GT, HIGHEST)));
    }

    /** {@code eˣ} lane by lane for {@code x ≤ 88.72} or NaN (softmax: x = s − max ≤ 0). */
    static FloatVector expNonPositive(FloatVector x) {
        // Compare-and-blend keeps NaN (every comparison with NaN is false), unlike a min/max clamp.
        x = x.blend(LOWEST, x.compare(VectorOperators.LT, LOWEST));
        FloatVector t = x.fma(LOG2E, ROUND);             // ROUND + n, n = round(x·log₂e)
        FloatVector n = t.sub(ROUND);
        FloatVector r = n.fma(x.broadcast(-LN2_HI), x);  // r = x − n·ln2: n·ln2_hi is exact
        r = n.fma(x.broadcast(-LN2_LO), r);
        FloatVector y = r.fma(C5, C4);                   // Horner: eʳ ≈ ((((C5·r + C4)·r + C3)·r + C2)·r + C1)·r + 1
        y = y.fma(r, x.broadcast(C3));
        y = y.fma(r, x.broadcast(C2));
        y = y.fma(r, x.broadcast(C1));
        y = y.fma(r, x.broadcast(1f));
        // 2ⁿ: the low bits of t hold n; shifted into the exponent field and biased.
        IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(EXPONENT_BIAS);
        return y.mul(bits.reinterpretAsFloats());
    }
}
