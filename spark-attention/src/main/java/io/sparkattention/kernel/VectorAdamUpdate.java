package io.sparkattention.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API loop of {@link AdamUpdate}: a float vector of θ, m and v at a time, each widened
 * into two double vectors (parts 0 and 1), the moments computed in double lanes and rounded to
 * float (two narrowed halves blended into one float vector, as {@link VectorWidening} does), the
 * rounded moments widened again for θ's update, exactly as the scalar loop reads its float
 * moments. Only the preferred shapes are used (see {@link VectorWidening} on a second float shape).
 *
 * <p>Each rounded vector is cast to the species' exact class ({@code EXACT}) before its store. C2
 * (JDK 17) inlines this loop's last Vector API calls late, and a late call on a vector of unknown
 * class takes the class from the API's shared call profile: in a fine-tuning JVM, with a miss on
 * record there, θ's store ran on the API's Java fallback in three compilations of four
 * (LogCompilation), 2–3× the update's time (see {@link VectorLinearKernel#EXACT}).
 */
final class VectorAdamUpdate implements AdamUpdate.Loop {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();
    /** A float vector's upper half, lanes [DL, FL): where the second double vector's values go. */
    private static final VectorMask<Float> UPPER = F.indexInRange(-DL, DL);
    private static final Class<? extends Vector<Float>> EXACT = VectorLinearKernel.EXACT;

    // Shapes: θ, m, v float[n]; g double[], position i at g[i − base]; FL floats = 2 × DL doubles a pass.
    @Override
    public void apply(float[] theta, float[] m, float[] v, double[] g, int base, int from, int to,
                      AdamUpdate.Coefficients h) {
        double beta1 = h.beta1(), beta2 = h.beta2(), eps = h.eps(), decay = h.decay();
        double stepSize = h.stepSize(), correction2 = h.correction2();
        double gain1 = 1 - beta1, gain2 = 1 - beta2;
        int i = from;
        for (int bound = from + (to - from) / FL * FL; i < bound; i += FL) {
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
            FloatVector mr = (FloatVector) EXACT.cast(((FloatVector) m0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) m1.convertShape(VectorOperators.D2F, F, -1), UPPER));
            FloatVector vr = (FloatVector) EXACT.cast(((FloatVector) v0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) v1.convertShape(VectorOperators.D2F, F, -1), UPPER));
            mr.intoArray(m, i);
            vr.intoArray(v, i);
            FloatVector tf = FloatVector.fromArray(F, theta, i);
            DoubleVector t0 = ((DoubleVector) tf.convertShape(VectorOperators.F2D, D, 0)).mul(decay)
                .sub(((DoubleVector) mr.convertShape(VectorOperators.F2D, D, 0)).mul(stepSize)
                    .div(((DoubleVector) vr.convertShape(VectorOperators.F2D, D, 0)).sqrt().div(correction2).add(eps)));
            DoubleVector t1 = ((DoubleVector) tf.convertShape(VectorOperators.F2D, D, 1)).mul(decay)
                .sub(((DoubleVector) mr.convertShape(VectorOperators.F2D, D, 1)).mul(stepSize)
                    .div(((DoubleVector) vr.convertShape(VectorOperators.F2D, D, 1)).sqrt().div(correction2).add(eps)));
            ((FloatVector) EXACT.cast(((FloatVector) t0.convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) t1.convertShape(VectorOperators.D2F, F, -1), UPPER)))
                .intoArray(theta, i);
        }
        AdamUpdate.scalar(theta, m, v, g, base, i, to, h);
    }
}
