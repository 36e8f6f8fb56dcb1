package io.sparkattention.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * eˣ in double lanes, the same bits in every JIT tier: {@code eˣ = 2ⁿ·eʳ},
 * {@code n = round(x·log₂e)}, {@code r = x − n·ln2 ∈ [−ln2/2, ln2/2]} (ln2 in two parts),
 * {@code eʳ} by its Taylor polynomial to degree {@value #EXP_DEGREE} (relative error below 1e-14),
 * {@code 2ⁿ} built in the exponent bits; only adds, multiplies and FMAs. The Vector API's own
 * {@code EXP} is a vector math library's in C2-compiled code and {@code Math.exp} lane by lane
 * (boxing as it goes) before, so its last bits would depend on how warm the JIT is, and a row's
 * numbers on when it ran.
 */
public final class VectorDoubleExp {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final int DL = D.length();

    /** The degree of eʳ's Taylor polynomial: |r|¹²/12! ≤ 6e-15 on [−ln2/2, ln2/2]. */
    public static final int EXP_DEGREE = 11;
    /** 1/k! for k = 0 … EXP_DEGREE. */
    private static final double[] INVERSE_FACTORIAL = new double[EXP_DEGREE + 1];
    private static final double LOG2E = 1.4426950408889634;
    private static final double LN2_HI = 0.6931471803691238;
    private static final double LN2_LO = 1.9082149292705877e-10;
    /** 1.5·2⁵²: adding and subtracting it rounds a double of magnitude below 2⁵¹ to an integer. */
    private static final double ROUND = 6755399441055744.0;
    private static final long ROUND_BITS = Double.doubleToRawLongBits(ROUND);
    /** Below this eˣ is taken as 0 (the true value is below 2⁻¹⁰²², subnormal). */
    private static final double LOWEST = -708.0;

    static {
        double f = 1;
        for (int k = 0; k <= EXP_DEGREE; k++) {
            f = k == 0 ? 1 : f * k;
            INVERSE_FACTORIAL[k] = 1.0 / f;
        }
    }

    private VectorDoubleExp() {
    }

    /**
     * eˣ of {@code w[0, len)} in place (len a multiple of the double lane count), for x ≤ 709, 0
     * below {@link #LOWEST}: one small loop with the Taylor polynomial written out, so no vector is
     * handed to a method or carried through a nested loop (C2 boxes those on JDK 17).
     */
    public static void expInPlace(double[] w, int len) {
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, w, i);
            DoubleVector xc = x.max(LOWEST);
            DoubleVector t = xc.mul(LOG2E).add(ROUND);
            DoubleVector n = t.sub(ROUND);
            DoubleVector r = n.neg().fma(DoubleVector.broadcast(D, LN2_HI), xc);
            r = n.neg().fma(DoubleVector.broadcast(D, LN2_LO), r);
            DoubleVector p = DoubleVector.broadcast(D, INVERSE_FACTORIAL[EXP_DEGREE]);
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[10]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[9]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[8]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[7]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[6]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[5]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[4]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[3]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[2]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[1]));
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[0]));
            // t = ROUND + n exactly, so its bits are ROUND's plus n: 2ⁿ without a double-to-long conversion.
            LongVector bits = t.reinterpretAsLongs().sub(ROUND_BITS - 1023).lanewise(VectorOperators.LSHL, 52);
            p.mul(bits.reinterpretAsDoubles()).blend(0.0, x.compare(VectorOperators.LT, LOWEST)).intoArray(w, i);
        }
    }
}
