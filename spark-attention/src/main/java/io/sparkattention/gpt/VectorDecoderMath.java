package io.sparkattention.gpt;

import io.sparkattention.kernel.VectorWidening;

import java.util.Arrays;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link DecoderMath} on the Java Vector API: {@link GeluNew}'s formula in double lanes (floats
 * widened into a thread's scratch doubles a chunk at a time by {@link VectorWidening}, computed on
 * there in small loops and narrowed back), and the log-sum-exp's maximum in float
 * lanes, its exponentials and sum in double lanes. Tails shorter than a vector run the scalar
 * arithmetic.
 *
 * <p><b>exp and tanh are written out</b> ({@link #exp}) rather than taken from the Vector API's
 * {@code EXP} and {@code TANH}: those are a vector math library's in C2-compiled code and another
 * implementation's before, so their last bits would depend on how warm the JIT is, and a row's
 * numbers on when it ran. Here: {@code eˣ = 2ⁿ·eʳ}, {@code n = round(x·log₂e)},
 * {@code r = x − n·ln2 ∈ [−ln2/2, ln2/2]} (ln2 in two parts), {@code eʳ} by its Taylor polynomial
 * to degree {@value #EXP_DEGREE} (relative error below 1e-14), {@code 2ⁿ} built in the exponent
 * bits; only adds, multiplies and FMAs, the same bits in every tier. {@code tanh(z) =
 * sign(z)·(1 − 2/(e^{2|z|} + 1))}, |z| capped at 20 (tanh(20) rounds to 1).
 */
final class VectorDecoderMath extends DecoderMath {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();

    /** The degree of eʳ's Taylor polynomial: |r|¹²/12! ≤ 6e-15 on [−ln2/2, ln2/2]. */
    static final int EXP_DEGREE = 11;
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
    /** tanh's argument is capped here: tanh(20) = 1 − 8.5e-18 rounds to 1. */
    private static final double TANH_CAP = 20.0;

    static {
        double f = 1;
        for (int k = 0; k <= EXP_DEGREE; k++) {
            f = k == 0 ? 1 : f * k;
            INVERSE_FACTORIAL[k] = 1.0 / f;
        }
    }

    /**
     * Elements per chunk of a vector loop ({@link #geluNewVectors}, {@link #geluNewBackwardVectors},
     * the log-sum-exp's), a multiple of every lane count, so that the results do not depend on it:
     * a chunk's floats are widened into a thread's scratch doubles, computed on there and narrowed
     * back. A loop over a whole M×F array, run a few times a pass, was compiled on stack replacement
     * only, left at its exit (an untaken branch) and resumed in the interpreter, where the Vector
     * API is some 50× slower: gelu_new took 16% of a training pass's samples. Short calls get the
     * method compiled whole.
     */
    static final int CHUNK = VectorWidening.CHUNK;

    @Override
    void geluNew(float[] y, int n) {
        int bound = D.loopBound(n);
        double[] w = VectorWidening.scratch(0, CHUNK);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(y, from, len, w);
            geluNewVectors(w, len);
            VectorWidening.narrow(w, len, y, from);
        }
        GeluNew.apply(y, bound, n);
    }

    /** {@link #geluNew} of {@code w[0, len)}, in place; len a multiple of the double lane count. */
    private static void geluNewVectors(double[] w, int len) {
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, w, i);
            DoubleVector z = x.mul(x).mul(x).mul(GeluNew.CUBIC).add(x).mul(GeluNew.SQRT_2_OVER_PI);
            DoubleVector a = z.abs().min(TANH_CAP);
            DoubleVector t = DoubleVector.broadcast(D, 1.0).sub(DoubleVector.broadcast(D, 2.0)
                .div(exp(a.mul(2.0)).add(1.0)));
            t = t.blend(t.neg(), z.compare(VectorOperators.LT, 0.0));
            x.mul(0.5).mul(t.add(1.0)).intoArray(w, i);
        }
    }

    /**
     * tanh is written out in the loop as {@link #geluNew} writes it, not called as a method returning
     * a vector: on JDK 17's C2 such a helper made this loop several times slower (2 ns an element
     * written out, 13 ns and more through the helper, on this project's build machine).
     */
    @Override
    void geluNewBackward(float[] pre, float[] dy, float[] d, int n) {
        int bound = D.loopBound(n);
        double[] xs = VectorWidening.scratch(0, CHUNK), dys = VectorWidening.scratch(1, CHUNK);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(pre, from, len, xs);
            VectorWidening.widen(dy, from, len, dys);
            geluNewBackwardVectors(xs, dys, len);
            VectorWidening.narrow(xs, len, d, from);
        }
        GeluNew.backward(pre, dy, d, bound, n);
    }

    /** {@link #geluNewBackward} of {@code x[0, len)} and {@code dy[0, len)} into x; len a multiple of the double lane count. */
    private static void geluNewBackwardVectors(double[] xs, double[] dys, int len) {
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector z = x.mul(x).mul(x).mul(GeluNew.CUBIC).add(x).mul(GeluNew.SQRT_2_OVER_PI);
            DoubleVector a = z.abs().min(TANH_CAP);
            DoubleVector t = DoubleVector.broadcast(D, 1.0).sub(DoubleVector.broadcast(D, 2.0)
                .div(exp(a.mul(2.0)).add(1.0)));
            t = t.blend(t.neg(), z.compare(VectorOperators.LT, 0.0));
            DoubleVector slope = x.mul(x).mul(3.0 * GeluNew.CUBIC).add(1.0).mul(GeluNew.SQRT_2_OVER_PI);
            DoubleVector g = t.add(1.0).mul(0.5).add(x.mul(0.5).mul(t.mul(t).neg().add(1.0)).mul(slope));
            g.mul(DoubleVector.fromArray(D, dys, i)).intoArray(xs, i);
        }
    }

    @Override
    double logSumExp(float[] x, int off, int n) {
        int j = 0;
        FloatVector mv = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int bound = F.loopBound(n); j < bound; j += FL) {
            mv = mv.max(FloatVector.fromArray(F, x, off + j));
        }
        float max = mv.reduceLanes(VectorOperators.MAX);
        for (; j < n; j++) {
            max = Math.max(max, x[off + j]);
        }
        int bound = D.loopBound(n);
        double[] w = VectorWidening.scratch(0, CHUNK);
        // The lane sums ride from chunk to chunk in scratch doubles rather than in a vector: C2 boxes
        // a vector carried through two nested loops on every inner step.
        double[] lanes = VectorWidening.scratch(1, DL);
        Arrays.fill(lanes, 0, DL, 0.0);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(x, off + from, len, w);
            DoubleVector acc = DoubleVector.fromArray(D, lanes, 0);
            for (int i = 0; i < len; i += DL) {
                acc = acc.add(exp(DoubleVector.fromArray(D, w, i).sub(max)));
            }
            acc.intoArray(lanes, 0);
        }
        double sum = DoubleVector.fromArray(D, lanes, 0).reduceLanes(VectorOperators.ADD);
        for (j = bound; j < n; j++) {
            sum += Math.exp((double) x[off + j] - max);
        }
        return max + Math.log(sum);
    }

    @Override
    void softmaxGradient(float[] x, int off, int n, double lse, int target, double weight) {
        double zt = x[off + target];
        int bound = D.loopBound(n);
        double[] w = VectorWidening.scratch(0, CHUNK);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(x, off + from, len, w);
            for (int i = 0; i < len; i += DL) {
                exp(DoubleVector.fromArray(D, w, i).sub(lse)).mul(weight).intoArray(w, i);
            }
            VectorWidening.narrow(w, len, x, off + from);
        }
        for (int j = bound; j < n; j++) {
            x[off + j] = (float) (weight * Math.exp((double) x[off + j] - lse));
        }
        x[off + target] = (float) (weight * (Math.exp(zt - lse) - 1.0));
    }

    /** eˣ lane by lane for x ≤ 709 (as the class comment computes it); 0 below {@link #LOWEST}. */
    private static DoubleVector exp(DoubleVector x) {
        DoubleVector xc = x.max(LOWEST);
        DoubleVector t = xc.mul(LOG2E).add(ROUND);
        DoubleVector n = t.sub(ROUND);
        DoubleVector r = n.neg().fma(DoubleVector.broadcast(D, LN2_HI), xc);
        r = n.neg().fma(DoubleVector.broadcast(D, LN2_LO), r);
        DoubleVector p = DoubleVector.broadcast(D, INVERSE_FACTORIAL[EXP_DEGREE]);
        for (int k = EXP_DEGREE - 1; k >= 0; k--) {
            p = p.fma(r, DoubleVector.broadcast(D, INVERSE_FACTORIAL[k]));
        }
        // t = ROUND + n exactly, so its bits are ROUND's plus n: 2ⁿ without a double-to-long conversion.
        LongVector bits = t.reinterpretAsLongs().sub(ROUND_BITS - 1023).lanewise(VectorOperators.LSHL, 52);
        DoubleVector e = p.mul(bits.reinterpretAsDoubles());
        return e.blend(0.0, x.compare(VectorOperators.LT, LOWEST));
    }

    @Override
    String name() {
        return "vector:" + D.vectorBitSize() + "-bit";
    }
}
