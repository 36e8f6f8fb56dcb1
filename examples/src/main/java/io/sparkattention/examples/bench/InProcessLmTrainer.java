package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptTrainingNetwork;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import io.sparkattention.nn.TrainingEvaluator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Our side of {@code bench --train-lm}, in this JVM without Spark: {@link GptTrainingNetwork}'s
 * evaluator on T threads (the step's blocks cut into T contiguous runs, one evaluator bound per
 * thread, each run's gradient sums merged in run order, as the training engine merges its tasks'),
 * then on this thread the step's mean, {@code clip_grad_norm_} ({@link GradientClipping}), and
 * {@link Optimizer#adamW} (GPT-2's groups: decay on 2-D tensors) or Adam at Hugging Face's linear
 * schedule ({@link LearningRateSchedule#linearWarmup}). The same steps the Spark Estimator takes
 * with every block in every step, without its jobs, broadcasts and task results.
 */
final class InProcessLmTrainer implements AutoCloseable {

    /** Seed of the evaluator's dropout keys (dropout is 0 here: no mask is drawn). */
    private static final long SEED = 42;

    private final GptTrainingNetwork network;
    private final float[] theta;
    private final Optimizer optimizer;
    private final LearningRateSchedule schedule;
    private final double maxGradNorm;
    private final ExecutorService pool;
    private final int threads;
    private long steps;

    InProcessLmTrainer(GptWeights start, TorchLmTrainer.Spec spec, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.network = new GptTrainingNetwork(start.config(), 0.0);
        this.theta = network.flatten(start);
        this.optimizer = "adamw".equals(spec.solver())
            ? Optimizer.adamW(spec.stepSize(), spec.weightDecay(), network.parameters())
            : Optimizer.adam(spec.stepSize(), 0.0);
        this.schedule = LearningRateSchedule.linearWarmup(spec.warmupSteps(), spec.totalSteps());
        this.maxGradNorm = spec.maxGradNorm();
        this.threads = threads;
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "train-lm-bench");
            t.setDaemon(true);
            return t;
        });
    }

    /** One step on {@code blocks}; returns the loss before the update (Σ weighted loss / Σ weight). */
    double step(List<TokenBlock> blocks) {
        long step = steps;
        List<Future<double[]>> parts = new ArrayList<>();
        List<GradientSums> sums = new ArrayList<>();
        int n = blocks.size();
        for (int t = 0; t < threads; t++) {
            List<TokenBlock> run = blocks.subList(n * t / threads, n * (t + 1) / threads);
            GradientSums part = new GradientSums(GradientSums.Layout.of(network));
            sums.add(part);
            parts.add(pool.submit(() -> {
                TrainingEvaluator<TokenBlock> evaluator = network.bind(theta, true, SEED, step);
                double weight = 0;
                for (TokenBlock block : run) {
                    weight += evaluator.weight(block);
                }
                double loss = run.isEmpty() ? 0 : evaluator.add(run);
                evaluator.flushInto(part);
                return new double[] {loss, weight};
            }));
        }
        double loss = 0, weight = 0;
        try {
            for (Future<double[]> part : parts) {
                double[] lw = part.get();
                loss += lw[0];
                weight += lw[1];
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in a training step", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a training step failed: " + e.getCause(), e.getCause());
        }
        GradientSums total = sums.get(0);
        for (int t = 1; t < threads; t++) {
            total.add(sums.get(t));
        }
        double[] gradient = total.toFlat();
        for (int i = 0; i < gradient.length; i++) {
            gradient[i] /= weight;
        }
        if (maxGradNorm > 0) {
            GradientClipping.clipByGlobalNorm(gradient, maxGradNorm);
        }
        optimizer.step(theta, gradient, schedule.factor(step));
        steps++;
        return loss / weight;
    }

    /** The current weights as the decoder's tensors. */
    GptWeights weights() {
        return network.weights(theta);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
