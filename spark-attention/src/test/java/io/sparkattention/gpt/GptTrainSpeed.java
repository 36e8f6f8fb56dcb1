package io.sparkattention.gpt;

import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.TrainingEvaluator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A quick check of where a GPT training pass spends its time (not a test, not the benchmark:
 * {@code bench --train-lm} is): one thread, {@code bench --train-lm}'s byte model (6 layers, 384
 * wide, 6 heads, 256 positions and ids, dropout as given, default 0) and one thread's share of its
 * step, a run of 8 blocks of 256. Per round, back to back in this JVM, the thread's CPU time of:
 * the whole {@code add} + {@code flushInto} through the network's evaluator ("step"), then the
 * pass's phases on the same weights (the blocks' forwards, the head's forward and backward, the
 * blocks' backwards) with the attention on the inference decoder's kernel ("auto": tiled beyond
 * 128 tokens) and on the training passes' ({@link GptTrainingWeights#trainingKernel}: direct up to
 * 256), then the causal attention kernel alone on every block's 6 heads of 64, on the direct and
 * the tiled path, forward and backward. Prints each round and the medians, with the load average
 * (the machine is shared).
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp … io.sparkattention.gpt.GptTrainSpeed [rounds] [blocks] [dropout]
 * </pre>
 */
public final class GptTrainSpeed {

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final String[] PHASES = {"step", "auto: forward", "head", "backward", "training kernel: forward",
        "head", "backward", "attn fwd direct", "attn bwd direct", "attn fwd tiled", "attn bwd tiled"};

    private GptTrainSpeed() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        double dropout = args.length > 2 ? Double.parseDouble(args[2]) : 0.0;
        int L = 256;
        GptConfig config = new GptConfig(6, 384, 6, L, 256, 4 * 384, 1e-5f, GptConfig.GELU_NEW, true);
        GptTrainingNetwork net = new GptTrainingNetwork(config, dropout);
        float[] theta = net.initialParameters(3);
        Random rnd = new Random(42);
        List<TokenBlock> run = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            int[] ids = new int[L];
            for (int j = 0; j < L; j++) {
                ids[j] = 32 + rnd.nextInt(96);
            }
            run.add(new TokenBlock(ids, 1.0, r));
        }
        Pass auto = new Pass(net, theta, run, GptBlock.causalKernel());
        Pass trained = new Pass(net, theta, run, GptTrainingWeights.trainingKernel(GptBlock.causalKernel()));
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        double[][] ms = new double[PHASES.length][rounds];
        System.out.printf("%d blocks of %d tokens, dropout %s, attention path %s; load %s%n", count, L, dropout,
            AttentionPath.configured(), load());
        for (int round = -2; round < rounds; round++) {
            double[] t = new double[PHASES.length];
            long s = CPU.getCurrentThreadCpuTime();
            TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 7, 1);
            ev.add(run);
            ev.flushInto(sums);
            t[0] = since(s);
            auto.phases(t, 1);
            trained.phases(t, 4);
            trained.attention(t, 7);
            StringBuilder line = new StringBuilder();
            for (int k = 0; k < PHASES.length; k++) {
                line.append(String.format("  %s %.0f", PHASES[k], t[k]));
                if (round >= 0) {
                    ms[k][round] = t[k];
                }
            }
            System.out.printf("round %d:%s ms; load %s%n", round, line, load());
        }
        StringBuilder line = new StringBuilder();
        for (int k = 0; k < PHASES.length; k++) {
            line.append(String.format("  %s %.0f", PHASES[k], median(ms[k])));
        }
        double step = median(ms[0]);
        System.out.printf("median:%s ms; %.0f tokens/s per thread%n", line, count * L / step * 1e3);
    }

    /** The evaluator's pass taken apart, on its own records and scratch. */
    private static final class Pass {
        final GptTrainingWeights w;
        final GptTrainingRecord.Layer[] records;
        final GptTrainingRecord.Scratch scratch;
        final GptLmHead head;
        final int[] starts;
        final int[][] ids;
        final double[] weights;
        final int M;
        final int E;
        final float[] grad;
        final float[] h;

        Pass(GptTrainingNetwork net, float[] theta, List<TokenBlock> run, FlashAttention kernel) {
            this.w = new GptTrainingWeights(net, theta, kernel);
            int n = w.blocks.length, count = run.size();
            this.E = net.config().hidden();
            this.records = new GptTrainingRecord.Layer[n];
            this.starts = new int[count + 1];
            this.ids = new int[count][];
            this.weights = new double[count];
            for (int r = 0; r < count; r++) {
                ids[r] = run.get(r).ids();
                weights[r] = 1;
                starts[r + 1] = starts[r] + ids[r].length;
            }
            this.M = starts[count];
            for (int i = 0; i < n; i++) {
                records[i] = new GptTrainingRecord.Layer(GptTrainingBlock.attentionGradientSize(E));
                records[i].ensure(M, E, net.config().inner());
            }
            this.scratch = new GptTrainingRecord.Scratch(new WeightGradient(w.linear));
            scratch.ensure(M, E, net.config().inner());
            this.head = new GptLmHead(w);
            this.grad = new float[net.parameterCount()];
            this.h = new float[M * E];
        }

        void phases(double[] t, int at) {
            int count = ids.length;
            float[] x = scratch.x;
            for (int r = 0; r < count; r++) {
                GptStack.embed(w.tokenEmbedding, w.positionEmbedding, E, ids[r], 0, ids[r].length, 0, x, starts[r]);
            }
            long s = CPU.getCurrentThreadCpuTime();
            for (int n = 0; n < w.blocks.length; n++) {
                w.blocks[n].forward(x, starts, count, records[n], scratch, null);
            }
            t[at] = since(s);
            System.arraycopy(x, 0, h, 0, M * E);
            s = CPU.getCurrentThreadCpuTime();
            head.run(h, ids, weights, starts, count, new double[count], x, grad, w.wteOffset, scratch.weightGradient);
            t[at + 1] = since(s);
            s = CPU.getCurrentThreadCpuTime();
            for (int n = w.blocks.length - 1; n >= 0; n--) {
                w.blocks[n].backward(x, starts, count, records[n], scratch, null, grad);
            }
            t[at + 2] = since(s);
        }

        /** Every block's causal attention of seeded q, k, v (M×3E as the fused projection) on both paths. */
        void attention(double[] t, int at) {
            int F = 3 * E, H = 6, d = E / H;
            Random rnd = new Random(5);
            float[] qkv = new float[M * F];
            for (int i = 0; i < qkv.length; i++) {
                qkv[i] = (float) rnd.nextGaussian();
            }
            float[] ctx = new float[M * E], lse = new float[H * M], dqkv = new float[M * F];
            float[] dOut = scratch.dNormed;
            Workspace ws = new Workspace();
            FlashAttention causal = GptBlock.causalKernel();
            for (int p = 0; p < 2; p++) {
                FlashAttention kernel = causal.withPath(p == 0 ? AttentionPath.DIRECT : AttentionPath.TILED);
                long s = CPU.getCurrentThreadCpuTime();
                for (int r = 0; r < ids.length; r++) {
                    int o = starts[r];
                    AttentionShape shape = new AttentionShape(ids[r].length, ids[r].length, H, H, d, d);
                    kernel.forward(shape, new MatrixView(qkv, o * F, F), new MatrixView(qkv, o * F + E, F),
                        new MatrixView(qkv, o * F + 2 * E, F), RowMask.NONE, new MatrixView(ctx, o * E, E), lse,
                        H * o, ws);
                }
                t[at + 2 * p] = since(s);
                s = CPU.getCurrentThreadCpuTime();
                for (int r = 0; r < ids.length; r++) {
                    int o = starts[r];
                    AttentionShape shape = new AttentionShape(ids[r].length, ids[r].length, H, H, d, d);
                    kernel.backward(shape, new MatrixView(qkv, o * F, F), new MatrixView(qkv, o * F + E, F),
                        new MatrixView(qkv, o * F + 2 * E, F), RowMask.NONE, new MatrixView(ctx, o * E, E), lse,
                        H * o, new MatrixView(dOut, o * E, E), new MatrixView(dqkv, o * F, F),
                        new MatrixView(dqkv, o * F + E, F), new MatrixView(dqkv, o * F + 2 * E, F), null, ws);
                }
                t[at + 1 + 2 * p] = since(s);
            }
        }
    }

    private static double since(long start) {
        return (CPU.getCurrentThreadCpuTime() - start) / 1e6;
    }

    private static String load() {
        return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
