package io.sparkattention.kernel;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Floats to doubles and back, a full-width float vector at a time, for the element-wise math that
 * runs in double lanes (GELU, LayerNorm, the log-sum-exp): {@code float[] → double[]} widens each
 * float vector into two double vectors ({@code convertShape} parts 0 and 1), {@code double[] →
 * float[]} narrows two into one (part −1 and a blend), and the last elements go one at a time
 * (exactly as the vectors: widening is exact, narrowing rounds to nearest either way). The
 * callers compute on the doubles in small loops of their own.
 *
 * <p>Only the preferred float shape is ever read or written: on JDK 17 a second float shape in
 * the JVM (a half-width vector, as the double-lane math read floats before) shares the Vector
 * API's call profiles with the projections' micro-kernel, and C2 then boxed the kernel's
 * accumulators at every block's end (80–250 KB a 53×384×384 product, at about 0.6 of its speed).
 *
 * <p>The scratch doubles are per thread ({@link #scratch}), reused from call to call.
 */
public final class VectorWidening {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();
    /** A float vector's upper half, lanes [DL, FL): where the second double vector's values go. */
    private static final VectorMask<Float> UPPER = F.indexInRange(-DL, DL);

    /**
     * Elements an element-wise loop widens at a time: 32 KiB of doubles, in L1/L2 beside its
     * floats, a multiple of every lane count (so no result depends on it).
     */
    public static final int CHUNK = 4096;
    /** Scratch arrays a thread holds. */
    static final int SLOTS = 4;

    private static final ThreadLocal<double[][]> SCRATCH = ThreadLocal.withInitial(() -> new double[SLOTS][]);

    private VectorWidening() {
    }

    /** This thread's scratch array {@code slot} (0 … {@value #SLOTS} − 1) of at least {@code size} doubles. */
    public static double[] scratch(int slot, int size) {
        double[][] held = SCRATCH.get();
        if (held[slot] == null || held[slot].length < size) {
            held[slot] = new double[Math.max(size, CHUNK)];
        }
        return held[slot];
    }

    /** {@code a[from, from + len)} widened into {@code w[0, len)}. */
    public static void widen(float[] a, int from, int len, double[] w) {
        int i = 0;
        for (int bound = F.loopBound(len); i < bound; i += FL) {
            FloatVector v = FloatVector.fromArray(F, a, from + i);
            ((DoubleVector) v.convertShape(VectorOperators.F2D, D, 0)).intoArray(w, i);
            ((DoubleVector) v.convertShape(VectorOperators.F2D, D, 1)).intoArray(w, i + DL);
        }
        for (; i < len; i++) {
            w[i] = a[from + i];
        }
    }

    /** {@code w[0, len)} rounded to floats into {@code a[from, from + len)}. */
    public static void narrow(double[] w, int len, float[] a, int from) {
        int i = 0;
        for (int bound = F.loopBound(len); i < bound; i += FL) {
            ((FloatVector) DoubleVector.fromArray(D, w, i).convertShape(VectorOperators.D2F, F, 0))
                .blend((FloatVector) DoubleVector.fromArray(D, w, i + DL).convertShape(VectorOperators.D2F, F, -1), UPPER)
                .intoArray(a, from + i);
        }
        for (; i < len; i++) {
            a[from + i] = (float) w[i];
        }
    }

    /** Fills {@code s[0, len)} from the widened values {@code xs[0, len)} (a GELU's erf or tanh term). */
    @FunctionalInterface
    public interface Fill {
        void fill(double[] xs, int len, double[] s);
    }

    /**
     * {@code y[i] ← ½·y[i]·(1 + s_i)} for i &lt; bound (a multiple of the double lanes), a chunk at a
     * time in double lanes: both GELUs' shape, s = erf(x/√2) for BERT's and tanh(√(2/π)(x + 0.044715x³))
     * for gelu_new, filled per chunk by {@code fill} (arrays only: no vector crosses the call).
     * Uses scratch slots 0 (x) and 1 (s).
     */
    public static void halfGate(float[] y, int bound, Fill fill) {
        int size = Math.min(bound, CHUNK);
        double[] xs = scratch(0, size), ss = scratch(1, size);
        for (int from = 0; from < bound; from += CHUNK) {
            int len = Math.min(CHUNK, bound - from);
            widen(y, from, len, xs);
            fill.fill(xs, len, ss);
            for (int i = 0; i < len; i += DL) {
                DoubleVector x = DoubleVector.fromArray(D, xs, i);
                x.mul(0.5).mul(DoubleVector.fromArray(D, ss, i).add(1.0)).intoArray(xs, i);
            }
            narrow(xs, len, y, from);
        }
    }
}
