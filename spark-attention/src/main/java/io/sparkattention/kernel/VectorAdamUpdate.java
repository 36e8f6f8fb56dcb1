package io.sparkattention.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API loops of {@link AdamUpdate}, a block of values at a time: first the moments, then
 * θ. A float vector of m and v at a time is widened into two double vectors (parts 0 and 1), the
 * moments computed in double lanes and rounded to float (two narrowed halves blended into one float
 * vector, as {@link VectorWidening} does); θ's loop reads the rounded moments back and widens them,
 * exactly as the scalar loop reads its float moments. Only the preferred shapes are used (see
 * {@link VectorWidening} on a second float shape).
 */
final class VectorAdamUpdate implements AdamUpdate.Loop {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();
    /** A float vector's upper half, lanes [DL, FL): where the second double vector's values go. */
    private static final VectorMask<Float> UPPER = F.indexInRange(-DL, DL);

    /**
     * Values a block: the moments' loop writes a block's m and v, and θ's loop reads them back while
     * they are in L1 (1,024 floats each of θ, m and v and 1,024 doubles of g: 20 KiB). Two loops,
     * because C2 stops inlining a compilation at {@code LiveNodeCountInliningCutoff} live nodes: the
     * single fused loop's last Vector API call (θ's store) was left to the API's Java fallback in
     * three compilations of four inside a fine-tuning JVM, 2–3× the update's time.
     */
    static final int BLOCK = 1024;

    // Shapes: θ, m, v float[n]; g double[], position i at g[i − base].
    @Override
    public void apply(float[] theta, float[] m, float[] v, double[] g, int base, int from, int to,
                      AdamUpdate.Coefficients h) {
        for (int a = from; a < to; a += BLOCK) {
            int b = Math.min(to, a + BLOCK);
            int bound = a + (b - a) / FL * FL;
            moments(m, v, g, base, a, bound, h);
            parameters(theta, m, v, a, bound, h);
            AdamUpdate.scalar(theta, m, v, g, base, bound, b, h);
        }
    }

    // m, v over [from, to), a whole number of float vectors: FL floats = 2 × DL doubles a pass.
    private static void moments(float[] m, float[] v, double[] g, int base, int from, int to,
                                AdamUpdate.Coefficients h) {
        double beta1 = h.beta1(), beta2 = h.beta2();
        double gain1 = 1 - beta1, gain2 = 1 - beta2;
        for (int i = from; i < to; i += FL) {
            DoubleVector g0 = DoubleVector.fromArray(D, g, i - base);
            DoubleVector g1 = DoubleVector.fromArray(D, g, i - base + DL);
            FloatVector mf = FloatVector.fromArray(F, m, i);
            FloatVector vf = FloatVector.fromArray(F, v, i);
            DoubleVector m0 = ((DoubleVector) mf.convertShape(VectorOperators.F2D, D, 0)).mul(beta1).add(g0.mul(gain1));
            DoubleVector m1 = ((DoubleVector) mf.convertShape(VectorOperators.F2D, D, 1)).mul(beta1).add(g1.mul(gain1));
            DoubleVector v0 = ((DoubleVector) vf.convertShape(VectorOperators.F2D, D, 0)).mul(beta2)
                .add(g0.mul(gain2).mul(g0));
            DoubleVector v1 = ((DoubleVector) vf.convertShape(VectorOperators.F2D, D, 1)).mul(beta2)
                .add(g1.mul(gain2).mul(g1));
            ((FloatVector) m0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) m1.convertShape(VectorOperators.D2F, F, -1), UPPER).intoArray(m, i);
            ((FloatVector) v0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) v1.convertShape(VectorOperators.D2F, F, -1), UPPER).intoArray(v, i);
        }
    }

    // θ over [from, to) from the rounded moments, a whole number of float vectors.
    private static void parameters(float[] theta, float[] m, float[] v, int from, int to, AdamUpdate.Coefficients h) {
        double eps = h.eps(), decay = h.decay(), stepSize = h.stepSize(), correction2 = h.correction2();
        for (int i = from; i < to; i += FL) {
            FloatVector mr = FloatVector.fromArray(F, m, i);
            FloatVector vr = FloatVector.fromArray(F, v, i);
            FloatVector tf = FloatVector.fromArray(F, theta, i);
            DoubleVector t0 = ((DoubleVector) tf.convertShape(VectorOperators.F2D, D, 0)).mul(decay)
                .sub(((DoubleVector) mr.convertShape(VectorOperators.F2D, D, 0)).mul(stepSize)
                    .div(((DoubleVector) vr.convertShape(VectorOperators.F2D, D, 0)).sqrt().div(correction2).add(eps)));
            DoubleVector t1 = ((DoubleVector) tf.convertShape(VectorOperators.F2D, D, 1)).mul(decay)
                .sub(((DoubleVector) mr.convertShape(VectorOperators.F2D, D, 1)).mul(stepSize)
                    .div(((DoubleVector) vr.convertShape(VectorOperators.F2D, D, 1)).sqrt().div(correction2).add(eps)));
            ((FloatVector) t0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) t1.convertShape(VectorOperators.D2F, F, -1), UPPER)
                .intoArray(theta, i);
        }
    }
}
