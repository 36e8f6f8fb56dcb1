package io.sparkattention.kernel;
// Round 12 probe: one core, one 32-query strip x 256 keys, d = dv = 64: the Vector tiles' score and P.V kernels
// (6 keys / 6 value columns per block) against 8-key / 8-column blocks (16 accumulators of AVX-512's 32
// registers), round-robin in one JVM.   java ... io.sparkattention.kernel.Rates8 REPS
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import java.util.*;
public class Rates8 {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final int L = SPECIES.length(), W = 2 * L, KR = 64;

    // s[c*W + r] = sum_t k[kOff + c*KR + t] * qp[t*W + r], nk a multiple of 8
    static void scores8(int nk, int d, float[] qp, float[] k, int kOff, float[] s) {
        for (int c = 0; c + 8 <= nk; c += 8) {
            final int k0 = kOff + c * KR;
            FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
            FloatVector a40 = a00, a41 = a00, a50 = a00, a51 = a00, a60 = a00, a61 = a00, a70 = a00, a71 = a00;
            for (int t = 0; t < d; t++) {
                final int i = k0 + t, q = t * W;
                final FloatVector b0 = FloatVector.fromArray(SPECIES, qp, q), b1 = FloatVector.fromArray(SPECIES, qp, q + L);
                FloatVector x = FloatVector.broadcast(SPECIES, k[i]);
                a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, k[i + KR]);
                a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, k[i + 2 * KR]);
                a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, k[i + 3 * KR]);
                a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, k[i + 4 * KR]);
                a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, k[i + 5 * KR]);
                a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
                x = FloatVector.broadcast(SPECIES, k[i + 6 * KR]);
                a60 = x.fma(b0, a60); a61 = x.fma(b1, a61);
                x = FloatVector.broadcast(SPECIES, k[i + 7 * KR]);
                a70 = x.fma(b0, a70); a71 = x.fma(b1, a71);
            }
            final int o = c * W;
            a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
            a20.intoArray(s, o + 2 * W); a21.intoArray(s, o + 2 * W + L); a30.intoArray(s, o + 3 * W); a31.intoArray(s, o + 3 * W + L);
            a40.intoArray(s, o + 4 * W); a41.intoArray(s, o + 4 * W + L); a50.intoArray(s, o + 5 * W); a51.intoArray(s, o + 5 * W + L);
            a60.intoArray(s, o + 6 * W); a61.intoArray(s, o + 6 * W + L); a70.intoArray(s, o + 7 * W); a71.intoArray(s, o + 7 * W + L);
        }
    }

    // acc[t*W + r] += sum_c v[c*dv + t] * p[c*W + r], dv a multiple of 8
    static void accumulate8(int nk, int dv, float[] p, float[] v, float[] acc) {
        for (int t = 0; t + 8 <= dv; t += 8) {
            final int o = t * W;
            FloatVector a00 = FloatVector.fromArray(SPECIES, acc, o), a01 = FloatVector.fromArray(SPECIES, acc, o + L);
            FloatVector a10 = FloatVector.fromArray(SPECIES, acc, o + W), a11 = FloatVector.fromArray(SPECIES, acc, o + W + L);
            FloatVector a20 = FloatVector.fromArray(SPECIES, acc, o + 2 * W), a21 = FloatVector.fromArray(SPECIES, acc, o + 2 * W + L);
            FloatVector a30 = FloatVector.fromArray(SPECIES, acc, o + 3 * W), a31 = FloatVector.fromArray(SPECIES, acc, o + 3 * W + L);
            FloatVector a40 = FloatVector.fromArray(SPECIES, acc, o + 4 * W), a41 = FloatVector.fromArray(SPECIES, acc, o + 4 * W + L);
            FloatVector a50 = FloatVector.fromArray(SPECIES, acc, o + 5 * W), a51 = FloatVector.fromArray(SPECIES, acc, o + 5 * W + L);
            FloatVector a60 = FloatVector.fromArray(SPECIES, acc, o + 6 * W), a61 = FloatVector.fromArray(SPECIES, acc, o + 6 * W + L);
            FloatVector a70 = FloatVector.fromArray(SPECIES, acc, o + 7 * W), a71 = FloatVector.fromArray(SPECIES, acc, o + 7 * W + L);
            for (int c = 0, pi = 0, vi = t; c < nk; c++, pi += W, vi += dv) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, p, pi), b1 = FloatVector.fromArray(SPECIES, p, pi + L);
                FloatVector x = FloatVector.broadcast(SPECIES, v[vi]);
                a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, v[vi + 1]);
                a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, v[vi + 2]);
                a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, v[vi + 3]);
                a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, v[vi + 4]);
                a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, v[vi + 5]);
                a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
                x = FloatVector.broadcast(SPECIES, v[vi + 6]);
                a60 = x.fma(b0, a60); a61 = x.fma(b1, a61);
                x = FloatVector.broadcast(SPECIES, v[vi + 7]);
                a70 = x.fma(b0, a70); a71 = x.fma(b1, a71);
            }
            a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
            a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
            a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
            a60.intoArray(acc, o + 6 * W); a61.intoArray(acc, o + 6 * W + L); a70.intoArray(acc, o + 7 * W); a71.intoArray(acc, o + 7 * W + L);
        }
    }

    public static void main(String[] a) {
        int reps = Integer.parseInt(a[0]);
        int nk = 256, d = 64, dv = 64;
        TileOps ops = TileOps.named("vector");
        int w = ops.strip(1 << 20, false);
        if (w != W) throw new IllegalStateException("strip " + w);
        Random r = new Random(1);
        float[] qp = new float[w * d], k = new float[nk * KR], v = new float[nk * dv], s = new float[w * nk], s2 = new float[w * nk];
        float[] acc = new float[w * dv], acc2 = new float[w * dv];
        for (float[] x : new float[][] {qp, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        ops.scores(w, nk, d, 1f, qp, 0, k, 0, KR, s, w); scores8(nk, d, qp, k, 0, s2);
        System.out.println("scores equal: " + Arrays.equals(s, s2));
        ops.accumulate(w, nk, dv, s, w, v, 0, dv, acc, 0, w); accumulate8(nk, dv, s, v, acc2);
        double md = 0; for (int i = 0; i < acc.length; i++) md = Math.max(md, Math.abs(acc[i] - acc2[i]) / (1e-3 + Math.abs(acc[i])));
        System.out.println("acc max rel diff: " + md);
        double fl = 2.0 * w * nk * d;
        int iters = 2000;
        for (int rep = 0; rep < reps; rep++) {
            long t0 = System.nanoTime();
            for (int it = 0; it < iters; it++) ops.scores(w, nk, d, 1f, qp, 0, k, 0, KR, s, w);
            long t1 = System.nanoTime();
            for (int it = 0; it < iters; it++) scores8(nk, d, qp, k, 0, s2);
            long t2 = System.nanoTime();
            for (int it = 0; it < iters; it++) ops.accumulate(w, nk, dv, s, w, v, 0, dv, acc, 0, w);
            long t3 = System.nanoTime();
            for (int it = 0; it < iters; it++) accumulate8(nk, dv, s, v, acc2);
            long t4 = System.nanoTime();
            System.out.printf("scores 6x2 %5.1f  8x2 %5.1f GFLOP/s   P.V 6x2 %5.1f  8x2 %5.1f%n",
                fl * iters / (t1 - t0), fl * iters / (t2 - t1), fl * iters / (t3 - t2), fl * iters / (t4 - t3));
        }
    }
}
