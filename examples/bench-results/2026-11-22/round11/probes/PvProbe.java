package io.sparkattention.kernel;
import jdk.incubator.vector.*;
import java.util.*;
// Round 11 probe: the P.V kernel with 12 value columns x 2 vectors (24 accumulators, for AVX-512's 32 registers)
// against VectorTileOps's 6 x 2, one 32-query strip x 256 keys x dv = 64, one core.   java ... PvProbe REPS
public class PvProbe {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int L = S.length(), W = 2 * L;
    static void acc12(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
        int t = 0;
        for (; t + 12 <= dv; t += 12) {
            final int o = accOff + t * W;
            FloatVector a00 = FloatVector.fromArray(S, acc, o), a01 = FloatVector.fromArray(S, acc, o + L);
            FloatVector a10 = FloatVector.fromArray(S, acc, o + W), a11 = FloatVector.fromArray(S, acc, o + W + L);
            FloatVector a20 = FloatVector.fromArray(S, acc, o + 2 * W), a21 = FloatVector.fromArray(S, acc, o + 2 * W + L);
            FloatVector a30 = FloatVector.fromArray(S, acc, o + 3 * W), a31 = FloatVector.fromArray(S, acc, o + 3 * W + L);
            FloatVector a40 = FloatVector.fromArray(S, acc, o + 4 * W), a41 = FloatVector.fromArray(S, acc, o + 4 * W + L);
            FloatVector a50 = FloatVector.fromArray(S, acc, o + 5 * W), a51 = FloatVector.fromArray(S, acc, o + 5 * W + L);
            FloatVector a60 = FloatVector.fromArray(S, acc, o + 6 * W), a61 = FloatVector.fromArray(S, acc, o + 6 * W + L);
            FloatVector a70 = FloatVector.fromArray(S, acc, o + 7 * W), a71 = FloatVector.fromArray(S, acc, o + 7 * W + L);
            FloatVector a80 = FloatVector.fromArray(S, acc, o + 8 * W), a81 = FloatVector.fromArray(S, acc, o + 8 * W + L);
            FloatVector a90 = FloatVector.fromArray(S, acc, o + 9 * W), a91 = FloatVector.fromArray(S, acc, o + 9 * W + L);
            FloatVector aA0 = FloatVector.fromArray(S, acc, o + 10 * W), aA1 = FloatVector.fromArray(S, acc, o + 10 * W + L);
            FloatVector aB0 = FloatVector.fromArray(S, acc, o + 11 * W), aB1 = FloatVector.fromArray(S, acc, o + 11 * W + L);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                final FloatVector b0 = FloatVector.fromArray(S, p, pi), b1 = FloatVector.fromArray(S, p, pi + L);
                FloatVector x = FloatVector.broadcast(S, v[vi]);      a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(S, v[vi + 1]);  a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(S, v[vi + 2]);  a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(S, v[vi + 3]);  a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(S, v[vi + 4]);  a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(S, v[vi + 5]);  a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
                x = FloatVector.broadcast(S, v[vi + 6]);  a60 = x.fma(b0, a60); a61 = x.fma(b1, a61);
                x = FloatVector.broadcast(S, v[vi + 7]);  a70 = x.fma(b0, a70); a71 = x.fma(b1, a71);
                x = FloatVector.broadcast(S, v[vi + 8]);  a80 = x.fma(b0, a80); a81 = x.fma(b1, a81);
                x = FloatVector.broadcast(S, v[vi + 9]);  a90 = x.fma(b0, a90); a91 = x.fma(b1, a91);
                x = FloatVector.broadcast(S, v[vi + 10]); aA0 = x.fma(b0, aA0); aA1 = x.fma(b1, aA1);
                x = FloatVector.broadcast(S, v[vi + 11]); aB0 = x.fma(b0, aB0); aB1 = x.fma(b1, aB1);
            }
            a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
            a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
            a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
            a60.intoArray(acc, o + 6 * W); a61.intoArray(acc, o + 6 * W + L); a70.intoArray(acc, o + 7 * W); a71.intoArray(acc, o + 7 * W + L);
            a80.intoArray(acc, o + 8 * W); a81.intoArray(acc, o + 8 * W + L); a90.intoArray(acc, o + 9 * W); a91.intoArray(acc, o + 9 * W + L);
            aA0.intoArray(acc, o + 10 * W); aA1.intoArray(acc, o + 10 * W + L); aB0.intoArray(acc, o + 11 * W); aB1.intoArray(acc, o + 11 * W + L);
        }
        // the rest (64 = 5 x 12 + 4), one column at a time
        restFrom(t, nk, dv, p, v, vOff, ldv, acc, accOff);
    }
    static final TileOps OPS = TileOps.named("vector");
    static void restFrom(int t0, int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
        for (int t = t0; t < dv; t++) {
            final int o = accOff + t * W;
            FloatVector a0 = FloatVector.fromArray(S, acc, o), a1 = FloatVector.fromArray(S, acc, o + L);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                FloatVector x = FloatVector.broadcast(S, v[vi]);
                a0 = x.fma(FloatVector.fromArray(S, p, pi), a0);
                a1 = x.fma(FloatVector.fromArray(S, p, pi + L), a1);
            }
            a0.intoArray(acc, o); a1.intoArray(acc, o + L);
        }
    }
    public static void main(String[] a) {
        int nk = 256, dv = 64, reps = Integer.parseInt(a[0]);
        Random r = new Random(1);
        float[] p = new float[W * nk], v = new float[nk * dv], acc = new float[W * dv], acc2 = new float[W * dv];
        for (float[] x : new float[][] {p, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        double fl = 2.0 * W * nk * dv; int iters = 2000;
        for (int rep = 0; rep < reps; rep++) {
            long t0 = System.nanoTime();
            for (int it = 0; it < iters; it++) OPS.accumulate(W, nk, dv, p, W, v, 0, dv, acc, 0, W);
            long t1 = System.nanoTime();
            for (int it = 0; it < iters; it++) acc12(nk, dv, p, v, 0, dv, acc2, 0);
            long t2 = System.nanoTime();
            System.out.printf("P.V 6x2 %5.1f GFLOP/s   12x2 (+single-column rest) %5.1f%n", fl * iters / (t1 - t0), fl * iters / (t2 - t1));
        }
        double md = 0; for (int i = 0; i < acc.length; i++) md = Math.max(md, Math.abs(acc[i] - acc2[i]) / (1 + Math.abs(acc[i])));
        System.out.println("max rel diff " + md);
    }
}
