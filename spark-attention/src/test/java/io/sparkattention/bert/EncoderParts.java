package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;

/**
 * Where one MiniLM layer's time goes at L tokens (single thread, CPU time): the four projections,
 * the attention, GELU and the two LayerNorms. A development aid beside {@link EncoderSpeed}.
 */
public final class EncoderParts {

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private EncoderParts() {
    }

    public static void main(String[] args) {
        int L = args.length > 0 ? Integer.parseInt(args[0]) : 56;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        int E = 384, F = 1536, H = 12;
        Random r = new Random(1);
        float[] x = rand(r, L * E), h = rand(r, L * F);
        LinearWeight qkv = LinearWeight.of(rand(r, 3 * E * E), 3 * E, E, rand(r, 3 * E));
        LinearWeight out = LinearWeight.of(rand(r, E * E), E, E, rand(r, E));
        LinearWeight inter = LinearWeight.of(rand(r, F * E), F, E, rand(r, F));
        LinearWeight down = LinearWeight.of(rand(r, E * F), E, F, rand(r, E));
        float[] yqkv = new float[L * 3 * E], yE = new float[L * E], yF = new float[L * F];
        float[] q = rand(r, L * E), k = rand(r, L * E), v = rand(r, L * E), ctx = new float[L * E];
        FlashAttention tiled = new FlashAttention(AttentionSpec.defaults()).withPath(AttentionPath.TILED);
        FlashAttention direct = tiled.withPath(AttentionPath.DIRECT);
        // The encoder's call: Q, K and V read in place from the fused projection [q | k | v].
        MatrixView yq = new MatrixView(yqkv, 0, 3 * E), yk = new MatrixView(yqkv, E, 3 * E);
        MatrixView yv = new MatrixView(yqkv, 2 * E, 3 * E), yctx = new MatrixView(ctx, 0, E);
        AttentionShape shape = AttentionShape.self(L, H, E / H);
        Workspace ws = new Workspace();
        float[] g = rand(r, E), b = rand(r, E);
        for (int round = 0; round < 3; round++) {
            double tq = time(reps, () -> qkv.apply(x, L, yqkv));
            double to = time(reps, () -> out.apply(x, L, yE));
            double ti = time(reps, () -> inter.apply(x, L, yF));
            double td = time(reps, () -> down.apply(h, L, yE));
            double tdir = time(reps, () -> direct.forward(shape, yq, yk, yv, RowMask.NONE, yctx, null, 0, ws));
            System.out.printf("attention tiled %.1f µs, direct %.1f µs%n", time(reps, () -> tiled.forward(shape, q, k,
                v, RowMask.NONE, ctx, null, ws)), tdir);
            double ta = tdir;
            double tg = time(reps, () -> EncoderMath.INSTANCE.gelu(yF, L * F));
            double tl = time(reps, () -> EncoderMath.INSTANCE.layerNorm(yE, x, L, E, g, b, 1e-12f));
            double gemm = tq + to + ti + td;
            double total = gemm + ta + tg + 2 * tl;
            double flops = 2.0 * L * E * (3 * E + E + 2 * F);
            System.out.printf("L=%d per layer (µs): qkv %.1f out %.1f inter %.1f down %.1f | GEMM %.1f (%.0f GFLOP/s)"
                    + " | attention %.1f | gelu %.1f | 2×LN %.1f | total %.1f → %.0f tokens/s/thread (6 layers)%n",
                L, tq, to, ti, td, gemm, flops / gemm / 1e3, ta, tg, 2 * tl, total, L / (6 * total) * 1e6);
        }
    }

    private static double time(int reps, Runnable r) {
        for (int i = 0; i < reps / 5; i++) {
            r.run();
        }
        long t0 = CPU.getCurrentThreadCpuTime();
        for (int i = 0; i < reps; i++) {
            r.run();
        }
        return (CPU.getCurrentThreadCpuTime() - t0) / 1e3 / reps;
    }

    private static float[] rand(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian() * 0.1f;
        }
        return a;
    }
}
