package io.sparkattention.kernel;
import jdk.incubator.vector.*;
import java.util.*;
public class ExpP {
    static final VectorSpecies<Float> SP = FloatVector.SPECIES_PREFERRED;
    static final int L = SP.length();
    static final float LOWEST = -88.37f, LOG2E = 1.44269504088896341f, ROUND = 12582912f, LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f;
    static final float C1 = 9.999997020e-01f, C2 = 4.999915063e-01f, C3 = 1.666763574e-01f, C4 = 4.189793020e-02f, C5 = 8.290314116e-03f;
    static final int EXPONENT_BIAS = 127 << 23;
    // 2^f on [-0.5,0.5]: Taylor-ish coefficients of 2^f = e^(f ln2) (not minimax; speed probe only)
    static final float D1 = 0.6931472f, D2 = 0.2402265f, D3 = 0.05550411f, D4 = 0.009618129f, D5 = 0.001333355f;

    static void estrin(float[] a, int aOff, int lds, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector minusLn2Hi = FloatVector.broadcast(SP, -LN2_HI), minusLn2Lo = FloatVector.broadcast(SP, -LN2_LO);
        final FloatVector c3 = FloatVector.broadcast(SP, C3), c2 = FloatVector.broadcast(SP, C2);
        final FloatVector c1 = FloatVector.broadcast(SP, C1), one = FloatVector.broadcast(SP, 1f);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = aOff + j; c < nk; c++, i += lds) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                v = v.blend(LOWEST, v.compare(VectorOperators.LT, LOWEST));
                FloatVector t = v.fma(LOG2E, ROUND);
                FloatVector n = t.sub(ROUND);
                FloatVector r = n.fma(minusLn2Hi, v);
                r = n.fma(minusLn2Lo, r);
                FloatVector r2 = r.mul(r);
                FloatVector p45 = r.fma(C5, C4), p23 = r.fma(c3, c2), p01 = r.fma(c1, one);
                FloatVector y = p45.fma(r2, p23).fma(r2, p01);
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(EXPONENT_BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    static void exp2h(float[] a, int aOff, int lds, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector d3 = FloatVector.broadcast(SP, D3), d2 = FloatVector.broadcast(SP, D2);
        final FloatVector d1 = FloatVector.broadcast(SP, D1), one = FloatVector.broadcast(SP, 1f);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = aOff + j; c < nk; c++, i += lds) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                v = v.blend(-127f, v.compare(VectorOperators.LT, -127f));
                FloatVector t = v.add(ROUND);
                FloatVector f = v.sub(t.sub(ROUND));
                FloatVector y = f.fma(D5, D4);
                y = y.fma(f, d3); y = y.fma(f, d2); y = y.fma(f, d1); y = y.fma(f, one);
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(EXPONENT_BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    static void exp2e(float[] a, int aOff, int lds, int nk, float[] x, int xOff, int lanes, float[] sum) {
        final FloatVector d3 = FloatVector.broadcast(SP, D3), d2 = FloatVector.broadcast(SP, D2);
        final FloatVector d1 = FloatVector.broadcast(SP, D1), one = FloatVector.broadcast(SP, 1f);
        for (int j = 0; j < lanes; j += L) {
            FloatVector shift = FloatVector.fromArray(SP, x, xOff + j);
            FloatVector total = FloatVector.zero(SP);
            for (int c = 0, i = aOff + j; c < nk; c++, i += lds) {
                FloatVector v = FloatVector.fromArray(SP, a, i).sub(shift);
                v = v.blend(-127f, v.compare(VectorOperators.LT, -127f));
                FloatVector t = v.add(ROUND);
                FloatVector f = v.sub(t.sub(ROUND));
                FloatVector f2 = f.mul(f);
                FloatVector p45 = f.fma(D5, D4), p23 = f.fma(d3, d2), p01 = f.fma(d1, one);
                FloatVector y = p45.fma(f2, p23).fma(f2, p01);
                IntVector bits = t.reinterpretAsInts().lanewise(VectorOperators.LSHL, 23).add(EXPONENT_BIAS);
                FloatVector e = y.mul(bits.reinterpretAsFloats());
                e.intoArray(a, i);
                total = total.add(e);
            }
            FloatVector.fromArray(SP, sum, xOff + j).add(total).intoArray(sum, xOff + j);
        }
    }
    public static void main(String[] args) {
        int nk = 256;
        for (int w : new int[]{16, 256}) {
            int lds = Workspace.scoreStride(w);
            Random r = new Random(1);
            float[] s = new float[lds * nk], m = new float[w], l = new float[w];
            for (int i = 0; i < s.length; i++) s[i] = (float) (r.nextGaussian() * 3);
            Arrays.fill(m, 0.5f);
            int iters = 4_000_000 / w;
            double[][] t = new double[4][15];
            for (int rep = 0; rep < 15; rep++) {
                for (int v = 0; v < 4; v++) {
                    // refresh data to a fixed distribution: s = (s mod) keep values negative-ish
                    long t0 = System.nanoTime();
                    for (int it = 0; it < iters; it++) {
                        switch (v) {
                            case 0: VectorExp.expShifted(s, 0, lds, nk, m, 0, w, l, false); break;
                            case 1: estrin(s, 0, lds, nk, m, 0, w, l); break;
                            case 2: exp2h(s, 0, lds, nk, m, 0, w, l); break;
                            default: exp2e(s, 0, lds, nk, m, 0, w, l);
                        }
                    }
                    t[v][rep] = (System.nanoTime() - t0) / (double) iters / (w * nk);
                }
            }
            String[] names = {"prod", "estrin", "exp2-horner", "exp2-estrin"};
            for (int v = 0; v < 4; v++) { double[] x = t[v].clone(); Arrays.sort(x); System.out.printf("w=%d %-12s median %.3f ns/score (min %.3f)%n", w, names[v], x[7], x[0]); }
        }
    }
}
