package io.sparkattention.kernel;
// FlashAttention vs FlashAttention2 (probe copy) round-robin: N THREADS REPS [causal]
import java.util.*; import java.util.concurrent.ForkJoinPool;
public class AB2 {
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]), threads = Integer.parseInt(a[1]), reps = Integer.parseInt(a[2]);
        boolean causal = a.length > 3 && a[3].equals("causal");
        int H = 16, d = 64;
        AttentionShape shape = new AttentionShape(n, n, H, H, d, d);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal);
        Random r = new Random(1);
        float[] q = new float[shape.querySize()], k = new float[shape.keySize()], v = new float[shape.valueSize()];
        for (float[] x : new float[][] {q, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        ForkJoinPool pool = new ForkJoinPool(threads);
        FlashAttention f1 = new FlashAttention(spec); FlashAttention2 f2 = new FlashAttention2(spec);
        float[] o1 = new float[shape.outputSize()], o2 = new float[shape.outputSize()];
        long[] t1 = new long[reps], t2 = new long[reps];
        int warm = Math.max(10, reps / 3);
        for (int rep = -warm; rep < reps; rep++) {
            long s0 = System.nanoTime(); f1.forward(shape, q, k, v, RowMask.NONE, o1, null, pool);
            long s1 = System.nanoTime(); f2.forward(shape, q, k, v, RowMask.NONE, o2, null, pool);
            long s2 = System.nanoTime();
            if (rep >= 0) { t1[rep] = s1 - s0; t2[rep] = s2 - s1; }
        }
        double[] ratio = new double[reps]; for (int i = 0; i < reps; i++) ratio[i] = (double) t1[i] / t2[i];
        Arrays.sort(t1); Arrays.sort(t2); Arrays.sort(ratio);
        double md = 0; for (int i = 0; i < o1.length; i++) md = Math.max(md, Math.abs(o1[i] - o2[i]));
        System.out.printf("n=%d t=%d %s old %.2f ms new %.2f ms  old/new medians %.3f  paired-ratio median %.3f  maxdiff %.1e%n",
            n, threads, causal ? "causal" : "full", t1[reps/2]/1e6, t2[reps/2]/1e6, (double) t1[reps/2]/t2[reps/2], ratio[reps/2], md);
    }
}
