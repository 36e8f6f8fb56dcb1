import io.sparkattention.kernel.*;
import java.util.*;
import java.util.concurrent.ForkJoinPool;

/** Same-JVM round-robin of block configurations: args n reps causal cfg... (cfg = BQxBK). */
public class Blocks {
    public static void main(String[] a) {
        int n = Integer.parseInt(a[0]), reps = Integer.parseInt(a[1]);
        boolean causal = Boolean.parseBoolean(a[2]);
        String[] cfgs = Arrays.copyOfRange(a, 3, a.length);
        int H = 16, d = 64;
        AttentionShape shape = AttentionShape.self(n, H, d);
        Random rnd = new Random(42);
        float[] q = new float[shape.querySize()], k = new float[shape.keySize()], v = new float[shape.valueSize()];
        for (float[] x : new float[][]{q, k, v}) for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
        float[] out = new float[shape.outputSize()];
        ForkJoinPool pool = new ForkJoinPool(2);
        FlashAttention[] ks = new FlashAttention[cfgs.length];
        for (int i = 0; i < cfgs.length; i++) {
            String[] p = cfgs[i].split("x");
            ks[i] = new FlashAttention(AttentionSpec.defaults().withCausal(causal)
                .withBlocks(Integer.parseInt(p[0]), Integer.parseInt(p[1])));
        }
        System.out.println("ops " + ks[0].ops().name());
        double flops = causal ? 2.0 * n * (n + 1) * d * H : 4.0 * n * n * d * H;
        int warm = Math.max(5, (int) (3e9 / flops));
        long[][] t = new long[cfgs.length][reps];
        for (int r = -warm; r < reps; r++) {
            for (int i = 0; i < cfgs.length; i++) {
                long t0 = System.nanoTime();
                ks[i].forward(shape, q, k, v, RowMask.NONE, out, null, pool);
                long dt = System.nanoTime() - t0;
                if (r >= 0) t[i][r] = dt;
            }
        }
        for (int i = 0; i < cfgs.length; i++) {
            long[] s = t[i].clone(); Arrays.sort(s);
            double[] ratio = new double[reps];
            for (int r = 0; r < reps; r++) ratio[r] = (double) t[0][r] / t[i][r];
            Arrays.sort(ratio);
            System.out.printf("n=%d causal=%b %-8s median %.2f ms  %.1f GFLOP/s  speed vs first: median %.3f [%.3f..%.3f]%n",
                n, causal, cfgs[i], s[reps / 2] / 1e6, flops / s[reps / 2], ratio[reps / 2], ratio[reps / 4], ratio[3 * reps / 4]);
        }
    }
}
