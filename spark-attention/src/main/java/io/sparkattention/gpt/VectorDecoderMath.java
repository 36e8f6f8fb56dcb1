package io.sparkattention.gpt;

import io.sparkattention.kernel.VectorDoubleExp;
import io.sparkattention.kernel.VectorWidening;

import java.util.Arrays;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link DecoderMath} on the Java Vector API: {@link GeluNew}'s formula in double lanes (floats
 * widened into a thread's scratch doubles a chunk at a time by {@link VectorWidening}, computed on
 * there in small loops and narrowed back), and the log-sum-exp's maximum in float
 * lanes, its exponentials and sum in double lanes. Tails shorter than a vector run the scalar
 * arithmetic.
 *
 * <p><b>exp and tanh are written out</b> ({@link VectorDoubleExp}) rather than taken from the Vector
 * API's {@code EXP} and {@code TANH}, whose last bits would depend on how warm the JIT is:
 * {@code tanh(z) = sign(z)·(1 − 2/(e^{2|z|} + 1))}, |z| capped at 20 (tanh(20) rounds to 1).
 */
final class VectorDecoderMath extends DecoderMath {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();

    /** tanh's argument is capped here: tanh(20) = 1 − 8.5e-18 rounds to 1. */
    private static final double TANH_CAP = 20.0;

    /**
     * Elements per chunk of a vector loop (gelu_new, its backward, the log-sum-exp's), a multiple of
     * every lane count, so that the results do not depend on it: a chunk's floats are widened into
     * a thread's scratch doubles, computed on there and narrowed back. A loop over a whole M×F array, run a few times a pass, was compiled on stack replacement
     * only, left at its exit (an untaken branch) and resumed in the interpreter, where the Vector
     * API is some 50× slower: gelu_new took 16% of a training pass's samples. Short calls get the
     * method compiled whole.
     */
    static final int CHUNK = VectorWidening.CHUNK;

    @Override
    void geluNew(float[] y, int n) {
        int bound = D.loopBound(n);
        VectorWidening.halfGate(y, bound, VectorDecoderMath::tanhInto);
        GeluNew.apply(y, bound, n);
    }

    @Override
    void geluNewBackward(float[] pre, float[] dy, float[] d, int n) {
        int bound = D.loopBound(n);
        int size = Math.min(bound, CHUNK);
        double[] xs = VectorWidening.scratch(0, size), es = VectorWidening.scratch(1, size);
        double[] dys = VectorWidening.scratch(2, size);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(pre, from, len, xs);
            VectorWidening.widen(dy, from, len, dys);
            tanhInto(xs, len, es);
            for (int i = 0; i < len; i += DL) {
                DoubleVector x = DoubleVector.fromArray(D, xs, i);
                DoubleVector t = DoubleVector.fromArray(D, es, i);
                DoubleVector slope = x.mul(x).mul(3.0 * GeluNew.CUBIC).add(1.0).mul(GeluNew.SQRT_2_OVER_PI);
                DoubleVector g = t.add(1.0).mul(0.5).add(x.mul(0.5).mul(t.mul(t).neg().add(1.0)).mul(slope));
                g.mul(DoubleVector.fromArray(D, dys, i)).intoArray(xs, i);
            }
            VectorWidening.narrow(xs, len, d, from);
        }
        GeluNew.backward(pre, dy, d, bound, n);
    }

    /**
     * {@code ts[i] = tanh(z)} for gelu_new's tanh argument z = √(2/π)·(x + 0.044715·x³) of each
     * {@code xs[i]}, i &lt; len: tanh(z) = sign(z)·(1 − 2/(e + 1)) with e = e^(2·min(|z|, cap)). Each
     * loop is written out (no helper takes or returns a vector: on JDK 17 a vector handed to a call
     * C2 did not inline is boxed on every call).
     */
    private static void tanhInto(double[] xs, int len, double[] ts) {
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            x.mul(x).mul(x).mul(GeluNew.CUBIC).add(x).mul(GeluNew.SQRT_2_OVER_PI).abs().min(TANH_CAP).mul(2.0)
                .intoArray(ts, i);
        }
        VectorDoubleExp.expInPlace(ts, len);
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector z = x.mul(x).mul(x).mul(GeluNew.CUBIC).add(x).mul(GeluNew.SQRT_2_OVER_PI);
            DoubleVector t = DoubleVector.broadcast(D, 1.0)
                .sub(DoubleVector.broadcast(D, 2.0).div(DoubleVector.fromArray(D, ts, i).add(1.0)));
            t.blend(t.neg(), z.compare(VectorOperators.LT, 0.0)).intoArray(ts, i);
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
        double[] w = VectorWidening.scratch(0, Math.min(bound, CHUNK));
        // The lane sums ride from chunk to chunk in scratch doubles rather than in a vector: C2 boxes
        // a vector carried through two nested loops on every inner step.
        double[] lanes = VectorWidening.scratch(1, DL);
        Arrays.fill(lanes, 0, DL, 0.0);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(x, off + from, len, w);
            shift(w, len, max);
            VectorDoubleExp.expInPlace(w, len);
            DoubleVector acc = DoubleVector.fromArray(D, lanes, 0);
            for (int i = 0; i < len; i += DL) {
                acc = acc.add(DoubleVector.fromArray(D, w, i));
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
        double[] w = VectorWidening.scratch(0, Math.min(bound, CHUNK));
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            VectorWidening.widen(x, off + from, len, w);
            shift(w, len, lse);
            VectorDoubleExp.expInPlace(w, len);
            for (int i = 0; i < len; i += DL) {
                DoubleVector.fromArray(D, w, i).mul(weight).intoArray(w, i);
            }
            VectorWidening.narrow(w, len, x, off + from);
        }
        for (int j = bound; j < n; j++) {
            x[off + j] = (float) (weight * Math.exp((double) x[off + j] - lse));
        }
        x[off + target] = (float) (weight * (Math.exp(zt - lse) - 1.0));
    }

    /** {@code w[i] − by} for i &lt; len, in place. */
    private static void shift(double[] w, int len, double by) {
        for (int i = 0; i < len; i += DL) {
            DoubleVector.fromArray(D, w, i).sub(by).intoArray(w, i);
        }
    }

    @Override
    String name() {
        return "vector:" + D.vectorBitSize() + "-bit";
    }
}
