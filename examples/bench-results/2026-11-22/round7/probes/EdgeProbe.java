package io.sparkattention.kernel;

import java.util.*;
import java.util.concurrent.ForkJoinPool;

/**
 * Same-JVM round-robin: BLAS tiles with BLAS strips on edge blocks ("blas-strips", the code before
 * the change), BLAS tiles with Vector edge blocks ("blas", the default after it) and the Vector tiles,
 * causal and not. Args: n reps. Prints medians and causal ÷ non-causal per implementation.
 */
public class EdgeProbe {
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]), reps = Integer.parseInt(a[1]);
        int H = 16, d = 64;
        AttentionShape shape = AttentionShape.self(n, H, d);
        Random rnd = new Random(42);
        float[] q = new float[shape.querySize()], k = new float[shape.keySize()], v = new float[shape.valueSize()];
        for (float[] x : new float[][]{q, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
        float[] out = new float[shape.outputSize()];
        ForkJoinPool pool = new ForkJoinPool(2);
        TileOps[] ops = {new BlasTileOps(Blas.get(), TileOpsChoice.vectorSoftmax()), TileOps.named("blas"), TileOps.named("vector")};
        String[] names = {"blas-strips", "blas", "vector"};
        FlashAttention[][] ks = new FlashAttention[2][ops.length];
        for (int c = 0; c < 2; c++) for (int i = 0; i < ops.length; i++)
            ks[c][i] = new FlashAttention(AttentionSpec.defaults().withCausal(c == 1), ops[i]);
        int warm = Math.max(5, (int) (3e9 / (4.0 * n * n * d * H)));
        long[][][] t = new long[2][ops.length][reps];
        for (int r = -warm; r < reps; r++)
            for (int c = 0; c < 2; c++) for (int i = 0; i < ops.length; i++) {
                long t0 = System.nanoTime();
                ks[c][i].forward(shape, q, k, v, RowMask.NONE, out, null, pool);
                long dt = System.nanoTime() - t0;
                if (r >= 0) t[c][i][r] = dt;
            }
        double[] med = new double[2 * ops.length];
        for (int c = 0; c < 2; c++) for (int i = 0; i < ops.length; i++) {
            long[] s = t[c][i].clone(); Arrays.sort(s); med[c * ops.length + i] = s[reps / 2] / 1e6;
        }
        for (int i = 0; i < ops.length; i++)
            System.out.printf("n=%d %-12s non-causal %.2f ms  causal %.2f ms  causal/non-causal %.3f  causal speed vs blas-strips %.3f%n",
                n, names[i], med[i], med[ops.length + i], med[ops.length + i] / med[i], med[ops.length] / med[ops.length + i]);
    }
}
