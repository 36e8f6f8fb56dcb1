package io.sparkattention.bert;

import io.sparkattention.io.BundledModels;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.Pooling;
import io.sparkattention.nn.Softmax;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A quick check of what stacking a run buys fine-tuning (not a test, not the benchmark:
 * {@code bench --fine-tune} is): one thread, all-MiniLM-L6-v2 training every layer with dropout
 * 0.1, a run of 32 rows of 20–86 tokens (mean about 53, like the benchmark's Austen passages).
 * Per round, back to back in this JVM: the run through {@link BertClassifierEvaluator#add(List)}
 * (stacked) and the same rows added one by one, each then flushed once into its {@link GradientSums};
 * then the stacked pass alone ({@link ClassifierPasses}, no flush) at several tokens per pass.
 * Prints each round's CPU milliseconds (the thread's own time: the machine is shared) and the
 * medians.
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp … io.sparkattention.bert.FineTuneStackSpeed [rounds] [rows]
 * </pre>
 */
public final class FineTuneStackSpeed {

    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private FineTuneStackSpeed() {
    }

    public static void main(String[] args) throws java.io.IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        BertWeights w = BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2).weights();
        Random rnd = new Random(42);
        float[] head = new float[2 * w.config().hidden()];
        for (int i = 0; i < head.length; i++) {
            head[i] = (float) (0.05 * rnd.nextGaussian());
        }
        BertClassifierNetwork net = new BertClassifierNetwork(w, head, new float[2],
            new BertClassifierSettings(-1, Pooling.MEAN, 0.1));
        List<BertClassifierRow> run = new ArrayList<>();
        int tokens = 0;
        for (int r = 0; r < count; r++) {
            int[] ids = new int[20 + rnd.nextInt(67)];
            ids[0] = 101;
            for (int j = 1; j < ids.length - 1; j++) {
                ids[j] = 1000 + rnd.nextInt(28000);
            }
            ids[ids.length - 1] = 102;
            run.add(BertClassifierRow.of(ids, r % 2, 1.0, r));
            tokens += ids.length;
        }
        float[] theta = net.initialParameters();
        BertClassifierEvaluator ev = net.bind(theta, true, 7, 1);
        GradientLayout layout = GradientLayout.of(net);
        int[] passTokens = {64, 128, 256, 512, tokens};
        ClassifierPasses passes = new ClassifierPasses(net, theta);
        float[] grad = new float[net.parameterCount()];
        double[] stacked = new double[rounds], each = new double[rounds];
        double[][] byPass = new double[passTokens.length][rounds];
        System.out.printf("%d rows, %d tokens (mean %.1f), kernel rows independent: %s; load %s%n", count, tokens,
            (double) tokens / count, passes.rowsIndependent(), load());
        GradientSums sumsStacked = new GradientSums(layout), sumsEach = new GradientSums(layout);
        for (int round = -2; round < rounds; round++) {
            long t0 = CPU.getCurrentThreadCpuTime();
            ev.add(run);
            ev.flushInto(sumsStacked);
            long t1 = CPU.getCurrentThreadCpuTime();
            for (BertClassifierRow row : run) {
                ev.add(List.of(row));
            }
            ev.flushInto(sumsEach);
            long t2 = CPU.getCurrentThreadCpuTime();
            StringBuilder line = new StringBuilder();
            for (int k = 0; k < passTokens.length; k++) {
                long s = CPU.getCurrentThreadCpuTime();
                passes(passes, net, run, passTokens[k], grad);
                double ms = (CPU.getCurrentThreadCpuTime() - s) / 1e6;
                line.append(String.format(" %d:%.0f", passTokens[k], ms));
                if (round >= 0) {
                    byPass[k][round] = ms;
                }
            }
            Arrays.fill(grad, 0f);
            if (round >= 0) {
                stacked[round] = (t1 - t0) / 1e6;
                each[round] = (t2 - t1) / 1e6;
            }
            System.out.printf("round %d: stacked %.0f ms, one by one %.0f ms; passes of tokens:%s ms; load %s%n",
                round, (t1 - t0) / 1e6, (t2 - t1) / 1e6, line, load());
        }
        double ms = median(stacked), one = median(each);
        System.out.printf("median: stacked %.0f ms, one by one %.0f ms, ratio %.2f×; %.0f vs %.0f tokens/s per thread%n",
            ms, one, one / ms, tokens / ms * 1e3, tokens / one * 1e3);
        for (int k = 0; k < passTokens.length; k++) {
            System.out.printf("median pass of ≤ %d tokens: %.0f ms%n", passTokens[k], median(byPass[k]));
        }
    }

    /** The run through the stacked passes alone, at most {@code budget} tokens a pass. */
    private static void passes(ClassifierPasses passes, BertClassifierNetwork net, List<BertClassifierRow> run,
                               int budget, float[] grad) {
        RowStack stack = new RowStack(net.config().layers());
        int[] sites = new int[3 * net.config().layers() + 2];
        for (int i = 0; i < sites.length - 1; i++) {
            sites[i] = i;
        }
        sites[sites.length - 1] = DropoutMask.POOLED;
        for (int from = 0, to; from < run.size(); from = to) {
            int tokens = run.get(from).length();
            to = from + 1;
            while (to < run.size() && tokens + run.get(to).length() <= budget) {
                tokens += run.get(to++).length();
            }
            stack.set(run, from, to, 7, 1, 0.1, sites);
            passes.forward(stack);
            for (int r = 0; r < stack.count(); r++) {
                Softmax.lossAndGradient(passes.logits(r), net.numClasses(), run.get(from + r).label(), 1.0,
                    passes.dLogits(r));
            }
            passes.backward(stack, grad);
        }
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
