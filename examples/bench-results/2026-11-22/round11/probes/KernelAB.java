package io.sparkattention.kernel;
// Round 11 probe: the whole kernel (n x n, 16 heads, d = 64, non-causal or causal), tile arithmetic and
// blocks per variant (-Dvariants=vector,blas,vector@512x256,...), round-robin in one JVM.
//   java ... io.sparkattention.kernel.KernelAB N THREADS REPS [causal]
import java.util.*; import java.util.concurrent.ForkJoinPool;
public class KernelAB {
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]), threads = Integer.parseInt(a[1]), reps = Integer.parseInt(a[2]);
        boolean both = a.length > 3 && a[3].equals("both");
        boolean causal = a.length > 3 && a[3].equals("causal");
        var blas = Blas.get();
        Map<String, TileOps> ops = new LinkedHashMap<>();
        Map<String, Boolean> causalOf = new HashMap<>();
        Map<String, int[]> blocksOf = new HashMap<>();
        for (String c0 : System.getProperty("variants", "vector,blas").split(",")) {
          for (boolean cz : both ? new boolean[] {false, true} : new boolean[] {causal}) {
            String c = both ? c0 + (cz ? "/causal" : "/full") : c0;
            int[] blocks = {256, 256};
            if (c0.contains("@")) {  // e.g. new@128x512
                String[] bs = c0.substring(c0.indexOf('@') + 1).split("x");
                blocks = new int[] {Integer.parseInt(bs[0]), Integer.parseInt(bs[1])};
            }
            String base = c0.contains("@") ? c0.substring(0, c0.indexOf('@')) : c0;  // the name c keeps the blocks
            blocksOf.put(c, blocks);
            causalOf.put(c, cz);
            ops.put(c, switch (base) {
                case "blas" -> TileOps.named("blas");
                case "vector" -> TileOps.named("vector");
                case "unfused" -> new Unfused(TileOps.named("vector"));
                default -> throw new IllegalArgumentException(c);
            });
          }
        }
        int H = 16, d = 64;
        AttentionShape shape = new AttentionShape(n, n, H, H, d, d);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal);
        Random r = new Random(1);
        float[] q = new float[shape.querySize()], k = new float[shape.keySize()], v = new float[shape.valueSize()];
        for (float[] x : new float[][] {q, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        ForkJoinPool pool = new ForkJoinPool(threads);
        Map<String, float[]> outs = new LinkedHashMap<>(); Map<String, long[]> times = new LinkedHashMap<>();
        for (String c : ops.keySet()) { outs.put(c, new float[shape.outputSize()]); times.put(c, new long[reps]); }
        int warm = Math.max(5, reps / 4);
        for (int rep = -warm; rep < reps; rep++) {
            for (var e : ops.entrySet()) {
                int[] bl = blocksOf.get(e.getKey());
                FlashAttention fa = new FlashAttention(spec.withCausal(causalOf.get(e.getKey())).withBlocks(bl[0], bl[1]), e.getValue());
                long t0 = System.nanoTime();
                fa.forward(shape, q, k, v, RowMask.NONE, outs.get(e.getKey()), null, pool);
                long t1 = System.nanoTime();
                if (rep >= 0) times.get(e.getKey())[rep] = t1 - t0;
            }
        }
        double flops = causal ? 2.0 * n * (n + 1) * d * H : 4.0 * n * n * d * H;
        float[] ref = outs.get(ops.keySet().iterator().next());
        double oldMed = 0;
        for (String c : ops.keySet()) {
            long[] t = times.get(c).clone(); Arrays.sort(t);
            double med = t[reps / 2] / 1e6;
            if (oldMed == 0) oldMed = med;
            double maxDiff = 0; float[] o = outs.get(c);
            for (int i = 0; i < o.length; i++) maxDiff = Math.max(maxDiff, Math.abs(o[i] - ref[i]));
            double fl = causalOf.get(c) ? 2.0 * n * (n + 1) * d * H : 4.0 * n * n * d * H;
            System.out.printf("n=%d threads=%d %-14s median %8.2f ms  %6.1f GFLOP/s  first/this %.3f%n",
                n, threads, c, med, fl / med / 1e6, oldMed / med);
        }
    }
}
