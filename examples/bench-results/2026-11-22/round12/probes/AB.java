package io.sparkattention.kernel;
// A/B of TileOps classes round-robin in one JVM: -Dv=VectorTileOps,Pack2 (class names in this package), N THREADS REPS [causal]
import java.util.*; import java.util.concurrent.ForkJoinPool;
public class AB {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]), threads = Integer.parseInt(a[1]), reps = Integer.parseInt(a[2]);
        boolean causal = a.length > 3 && a[3].equals("causal");
        Map<String, TileOps> ops = new LinkedHashMap<>();
        for (String c : System.getProperty("v", "VectorTileOps").split(",")) {
            var ctor = Class.forName("io.sparkattention.kernel." + c).getDeclaredConstructor();
            ctor.setAccessible(true);
            ops.put(c, (TileOps) ctor.newInstance());
        }
        int H = 16, d = 64;
        AttentionShape shape = new AttentionShape(n, n, H, H, d, d);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal);
        Random r = new Random(1);
        float[] q = new float[shape.querySize()], k = new float[shape.keySize()], v = new float[shape.valueSize()];
        for (float[] x : new float[][] {q, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        ForkJoinPool pool = new ForkJoinPool(threads);
        Map<String, float[]> outs = new LinkedHashMap<>(); Map<String, long[]> times = new LinkedHashMap<>();
        Map<String, FlashAttention> fas = new LinkedHashMap<>();
        for (String c : ops.keySet()) { outs.put(c, new float[shape.outputSize()]); times.put(c, new long[reps]); fas.put(c, new FlashAttention(spec, ops.get(c))); }
        int warm = Math.max(10, reps / 3);
        for (int rep = -warm; rep < reps; rep++) {
            for (String c : ops.keySet()) {
                long t0 = System.nanoTime();
                fas.get(c).forward(shape, q, k, v, RowMask.NONE, outs.get(c), null, pool);
                long t1 = System.nanoTime();
                if (rep >= 0) times.get(c)[rep] = t1 - t0;
            }
        }
        double fl = causal ? 2.0 * n * (n + 1) * d * H : 4.0 * n * n * d * H;
        float[] ref = outs.get(ops.keySet().iterator().next());
        double first = 0;
        for (String c : ops.keySet()) {
            long[] t = times.get(c).clone(); Arrays.sort(t);
            double med = t[reps / 2] / 1e6;
            if (first == 0) first = med;
            double maxDiff = 0; float[] o = outs.get(c);
            for (int i = 0; i < o.length; i++) maxDiff = Math.max(maxDiff, Math.abs(o[i] - ref[i]));
            System.out.printf("n=%d t=%d %s %-16s median %7.2f ms %6.1f GFLOP/s  first/this %.3f  maxdiff %.2e%n",
                n, threads, causal ? "causal" : "full  ", c, med, fl / med / 1e6, first / med, maxDiff);
        }
    }
}
