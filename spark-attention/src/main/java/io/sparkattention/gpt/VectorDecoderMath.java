package io.sparkattention.gpt;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link DecoderMath} on the Java Vector API: {@link GeluNew}'s formula in double lanes (floats
 * widened and narrowed a half-width vector at a time, tanh by the Vector API), and the
 * log-sum-exp's maximum in float lanes, its exponentials and sum in double lanes. Tails shorter
 * than a vector run the scalar arithmetic.
 */
final class VectorDecoderMath extends DecoderMath {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    /** Floats with as many lanes as {@link #D}: a half-width vector. */
    private static final VectorSpecies<Float> F_HALF = VectorSpecies.of(float.class,
        VectorShape.forBitSize(D.vectorBitSize() / 2));
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();

    @Override
    void geluNew(float[] y, int n) {
        int i = 0;
        for (int bound = D.loopBound(n); i < bound; i += DL) {
            DoubleVector x = widen(y, i);
            DoubleVector inner = x.mul(x).mul(x).mul(GeluNew.CUBIC).add(x).mul(GeluNew.SQRT_2_OVER_PI);
            DoubleVector g = x.mul(0.5).mul(inner.lanewise(VectorOperators.TANH).add(1.0));
            ((FloatVector) g.convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(y, i);
        }
        GeluNew.apply(y, i, n);
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
        DoubleVector acc = DoubleVector.zero(D);
        j = 0;
        for (int bound = D.loopBound(n); j < bound; j += DL) {
            acc = acc.add(widen(x, off + j).sub(max).lanewise(VectorOperators.EXP));
        }
        double sum = acc.reduceLanes(VectorOperators.ADD);
        for (; j < n; j++) {
            sum += Math.exp((double) x[off + j] - max);
        }
        return max + Math.log(sum);
    }

    /** Floats {@code a[i … i + DL)} widened to double lanes. */
    private static DoubleVector widen(float[] a, int i) {
        return (DoubleVector) FloatVector.fromArray(F_HALF, a, i).convertShape(VectorOperators.F2D, D, 0);
    }

    @Override
    String name() {
        return "vector:" + D.vectorBitSize() + "-bit";
    }
}
