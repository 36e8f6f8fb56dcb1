package io.sparkattention.kernel;
// Round 11 probe: one core's rate of the Vector score kernel on one 32-query strip x 256 keys, d = 64,
// with key rows KEY_ROW apart (the fixed-stride path) and 72 apart (the run-time-stride path), and the
// P.V kernel on the same strip, round-robin in one JVM.   java ... TileRates... ScoreRates REPS
import java.util.*;
public class ScoreRates {
    public static void main(String[] a) {
        int reps = Integer.parseInt(a[0]);
        int nk = 256, d = 64, dv = 64;
        TileOps ops = TileOps.named("vector");
        int w = ops.strip(1 << 20, false);
        Random r = new Random(1);
        float[] qp = new float[w * d], k = new float[nk * 72], v = new float[nk * dv], s = new float[w * nk], acc = new float[w * dv];
        for (float[] x : new float[][] {qp, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        double fl = 2.0 * w * nk * d;
        int iters = 2000;
        for (int rep = 0; rep < reps; rep++) {
            long t0 = System.nanoTime();
            for (int it = 0; it < iters; it++) ops.scores(w, nk, d, 1f, qp, 0, k, 0, 64, s, w);
            long t1 = System.nanoTime();
            for (int it = 0; it < iters; it++) ops.scores(w, nk, d, 1f, qp, 0, k, 0, 72, s, w);
            long t2 = System.nanoTime();
            for (int it = 0; it < iters; it++) ops.accumulate(w, nk, dv, s, w, v, 0, dv, acc, 0, w);
            long t3 = System.nanoTime();
            System.out.printf("w=%d  scores ldk=64 %5.1f GFLOP/s  ldk=72 %5.1f  P.V %5.1f%n", w,
                fl * iters / (t1 - t0), fl * iters / (t2 - t1), fl * iters / (t3 - t2));
        }
    }
}
