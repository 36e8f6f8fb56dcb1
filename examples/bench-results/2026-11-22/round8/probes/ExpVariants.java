package io.sparkattention.kernel;
// Round 8 probe: variants of the softmax exp pass over 16-query strips of 256 keys, round-robin in
// one JVM (microseconds per 256x256 tile, median of 31). Compile and run against the library jar:
//   javac --add-modules jdk.incubator.vector -cp LIB.jar -d OUT ExpVariants.java
//   java --add-modules jdk.incubator.vector -cp OUT:LIB.jar io.sparkattention.kernel.ExpVariants
import java.util.*;
import jdk.incubator.vector.*;
public class ExpVariants {
    static final VectorSpecies<Float> SP = FloatVector.SPECIES_PREFERRED; static final int L = SP.length();
    static final float LOWEST = -88.37f, LOG2E = 1.44269504088896341f, ROUND = 12582912f, LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f;
    static final float C1 = 9.999997020e-01f, C2 = 4.999915063e-01f, C3 = 1.666763574e-01f, C4 = 4.189793020e-02f, C5 = 8.290314116e-03f;
    static final int BIAS = 127 << 23;
    static final int W = 16, NK = 256, STRIPS = 16;
    static float[] s0 = new float[W * NK], s = new float[W * NK], m = new float[256], l = new float[256];

    // V1: all constants as hoisted vectors
    static void v1(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector lo = FloatVector.broadcast(SP, LOWEST), log2e = FloatVector.broadcast(SP, LOG2E), round = FloatVector.broadcast(SP, ROUND);
        final FloatVector mh = FloatVector.broadcast(SP, -LN2_HI), ml = FloatVector.broadcast(SP, -LN2_LO);
        final FloatVector c5 = FloatVector.broadcast(SP, C5), c4 = FloatVector.broadcast(SP, C4), c3 = FloatVector.broadcast(SP, C3), c2 = FloatVector.broadcast(SP, C2), c1 = FloatVector.broadcast(SP, C1), one = FloatVector.broadcast(SP, 1f);
        final IntVector bias = IntVector.broadcast(VectorSpecies.of(int.class, SP.vectorShape()), BIAS);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            shift = shift.blend(0f, shift.compare(VectorOperators.EQ, Float.NEGATIVE_INFINITY));
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                v = v.blend(lo, v.compare(VectorOperators.LT, lo));
                FloatVector t = v.fma(log2e, round);
                FloatVector n = t.sub(round);
                FloatVector r = n.fma(mh, v);
                r = n.fma(ml, r);
                FloatVector y = r.fma(c5, c4).fma(r, c3).fma(r, c2).fma(r, c1).fma(r, one);
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(bias);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    // V2: no clamp (cost of the clamp)
    static void v2(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(FloatVector.broadcast(SP, -LN2_HI), v);
                r = n.fma(FloatVector.broadcast(SP, -LN2_LO), r);
                FloatVector y = r.fma(C5, C4).fma(r, FloatVector.broadcast(SP, C3)).fma(r, FloatVector.broadcast(SP, C2)).fma(r, FloatVector.broadcast(SP, C1)).fma(r, FloatVector.broadcast(SP, 1f));
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    // V3: only the polynomial (no bits): cost of reinterpret/shift
    static void v3(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(FloatVector.broadcast(SP, -LN2_HI), v);
                r = n.fma(FloatVector.broadcast(SP, -LN2_LO), r);
                FloatVector y = r.fma(C5, C4).fma(r, FloatVector.broadcast(SP, C3)).fma(r, FloatVector.broadcast(SP, C2)).fma(r, FloatVector.broadcast(SP, C1)).fma(r, FloatVector.broadcast(SP, 1f));
                FloatVector e = y.mul(t);
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    // V4: load, sub, store, add (memory floor)
    static void v4(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector e = FloatVector.fromArray(SP, a, i).sub(shift);
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }

    // V5: Java max clamp (keeps NaN, −∞ → LOWEST) + Horner
    static void v5(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector lo = FloatVector.broadcast(SP, LOWEST);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift).max(lo);
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(FloatVector.broadcast(SP, -LN2_HI), v);
                r = n.fma(FloatVector.broadcast(SP, -LN2_LO), r);
                FloatVector y = r.fma(C5, C4).fma(r, FloatVector.broadcast(SP, C3)).fma(r, FloatVector.broadcast(SP, C2)).fma(r, FloatVector.broadcast(SP, C1)).fma(r, FloatVector.broadcast(SP, 1f));
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    // V6: Java max clamp + Estrin
    static void v6(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector lo = FloatVector.broadcast(SP, LOWEST), one = FloatVector.broadcast(SP, 1f);
        final FloatVector c1 = FloatVector.broadcast(SP, C1), c3 = FloatVector.broadcast(SP, C3), c5 = FloatVector.broadcast(SP, C5);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift).max(lo);
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(FloatVector.broadcast(SP, -LN2_HI), v);
                r = n.fma(FloatVector.broadcast(SP, -LN2_LO), r);
                FloatVector r2 = r.mul(r);
                FloatVector p01 = r.fma(c1, one), p23 = r.fma(c3, FloatVector.broadcast(SP, C2)), p45 = r.fma(c5, FloatVector.broadcast(SP, C4));
                FloatVector y = r2.mul(r2).fma(p45, r2.fma(p23, p01));
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    // V7: compare-blend clamp (as now) + Estrin
    static void v7(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector one = FloatVector.broadcast(SP, 1f);
        final FloatVector c1 = FloatVector.broadcast(SP, C1), c3 = FloatVector.broadcast(SP, C3), c5 = FloatVector.broadcast(SP, C5);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                v = v.blend(LOWEST, v.compare(VectorOperators.LT, LOWEST));
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(FloatVector.broadcast(SP, -LN2_HI), v);
                r = n.fma(FloatVector.broadcast(SP, -LN2_LO), r);
                FloatVector r2 = r.mul(r);
                FloatVector p01 = r.fma(c1, one), p23 = r.fma(c3, FloatVector.broadcast(SP, C2)), p45 = r.fma(c5, FloatVector.broadcast(SP, C4));
                FloatVector y = r2.mul(r2).fma(p45, r2.fma(p23, p01));
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }

    // V8: SVML exp intrinsic
    static void v8(float[] a, int w, int nk, float[] x, int xOff, int lanes, float[] sum) {
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = j; c < nk; c++, i += w) {
                FloatVector e = FloatVector.fromArray(SP, a, i).sub(shift).lanewise(VectorOperators.EXP);
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    static void run(int v) {
        for (int st = 0; st < STRIPS; st++) {
            System.arraycopy(s0, 0, s, 0, s.length); int off = st * W;
            switch (v) {
                case 0: VectorExp.expShifted(s, 0, W, NK, m, off, W, l, false); break;
                case 1: v1(s, W, NK, m, off, W, l); break;
                case 2: v2(s, W, NK, m, off, W, l); break;
                case 3: v3(s, W, NK, m, off, W, l); break;
                case 4: v4(s, W, NK, m, off, W, l); break;
                case 6: v5(s, W, NK, m, off, W, l); break;
                case 7: v6(s, W, NK, m, off, W, l); break;
                case 8: v7(s, W, NK, m, off, W, l); break;
                case 9: v8(s, W, NK, m, off, W, l); break;
                default: break;
            }
        }
    }
    public static void main(String[] args) {
        Random r = new Random(1);
        for (int i = 0; i < s0.length; i++) s0[i] = (float) r.nextGaussian();
        Arrays.fill(m, 3f);
        int reps = 2000, NV = 10; long[][] t = new long[NV][31];
        for (int rep = -20; rep < 31; rep++) for (int v = 0; v < NV; v++) {
            long t0 = System.nanoTime(); for (int k = 0; k < reps; k++) run(v); if (rep >= 0) t[v][rep] = System.nanoTime() - t0; }
        String[] names = {"current", "hoisted consts", "no clamp", "no exp bits", "load-sub-store", "copy only", "max clamp", "max+estrin", "blend+estrin", "svml EXP"};
        for (int v = 0; v < NV; v++) { long[] x = t[v].clone(); Arrays.sort(x);
            System.out.printf("%-16s %.2f us per 256x256 tile%n", names[v], x[15] / 1e3 / reps); }
    }
}
