package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptWeights;

import org.apache.spark.sql.SparkSession;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Times training a causal language model ({@code bench --train-lm}): a GPT-2 of the chosen shape
 * from seeded random weights ({@link RandomGpt}) trained on the same blocks of Austen in every
 * step — ours through the Estimator ({@link EstimatorLmRun}) and, with {@code --peer torch},
 * PyTorch 2.7.1 ({@link TorchLmTrainer}) doing the same steps (forward, backward, clipping, AdamW at
 * the same schedule) on the same weights and blocks, round-robin: step s of ours, then step s of
 * PyTorch.
 * The first {@link #WARMUP_STEPS} steps of each are untimed. Dropout is 0, so both follow the
 * same trajectory: the lines carry each side's first and last loss.
 */
final class TrainLmBenchmark {

    /** Untimed steps of each contender before the timed ones. */
    static final int WARMUP_STEPS = 2;
    /** GPT-2's training settings as nanoGPT's and Hugging Face's examples set them. */
    static final double STEP_SIZE = 6e-4, WEIGHT_DECAY = 0.1, MAX_GRAD_NORM = 1.0;
    /** Steps of the schedule's warmup: step 0 at rate 0 (Hugging Face's warmup), then the peak falling linearly. */
    static final int SCHEDULE_WARMUP = 1;

    /** A benchmarked shape: the model and how many blocks of how many ids a step trains on. */
    record Shape(String name, GptConfig config, int blocks, int blockSize) {
        /** 6 layers, 384 wide, 6 heads, 256 positions, the 256 byte ids; 16 blocks of 256 a step. */
        static Shape bytes() {
            return new Shape("byte", new GptConfig(6, 384, 6, 256, 256, 4 * 384, 1e-5f, GptConfig.GELU_NEW, true), 16,
                256);
        }

        /** GPT-2 small (12 layers, 768 wide, 12 heads, 1,024 positions, 50,257 ids); 8 blocks of 512 a step. */
        static Shape gpt2() {
            return new Shape("gpt2", RandomGpt.gpt2Small(), 8, 512);
        }
    }

    private TrainLmBenchmark() {
    }

    /**
     * Runs {@code repeat} timed steps of each contender.
     *
     * @param spark  the session our fit runs on, or null for the peer alone ({@code --peer-only})
     * @param ids    the step's blocks, {@code shape.blocks()} rows of {@code shape.blockSize()} ids
     * @param torch  PyTorch's runtime, or null to time ours alone
     * @return our line (mode {@code train_lm}), then PyTorch's ({@code torch_train_lm})
     */
    static List<BenchResult> run(SparkSession spark, Shape shape, int[][] ids, TorchRuntime torch, int threads,
                                 int repeat) {
        GptWeights start = RandomGpt.weights(shape.config());
        int steps = WARMUP_STEPS + repeat;
        TorchLmTrainer.Spec spec = new TorchLmTrainer.Spec("adamw", STEP_SIZE, WEIGHT_DECAY, SCHEDULE_WARMUP,
            steps + 1, MAX_GRAD_NORM);
        boolean ours = spark != null;
        double[] oursMs, oursLoss, torchMs = new double[steps], torchLoss = new double[steps];
        try (TorchLmTrainer theirs = torch == null ? null : torch.lmTrainer(RandomGpt.torch(start), spec)) {
            if (ours) {
                EstimatorLmRun.Steps run = EstimatorLmRun.run(spark, start, ids, spec, theirs, steps);
                oursMs = run.oursMs();
                oursLoss = run.oursLoss();
                torchMs = run.torchMs();
                torchLoss = run.torchLoss();
            } else {
                oursMs = oursLoss = null;
                for (int s = 0; s < steps; s++) {
                    long t0 = System.nanoTime();
                    torchLoss[s] = theirs.step(ids);
                    torchMs[s] = (System.nanoTime() - t0) / 1e6;
                }
            }
        }
        long tokens = (long) ids.length * shape.blockSize();
        double flops = stepFlops(shape);
        List<BenchResult> lines = new ArrayList<>();
        if (ours) {
            lines.add(line("train_lm", shape, tokens, threads, oursMs, oursLoss, flops,
                    io.sparkattention.kernel.Blas.name())
                .with("trainer", "ml.lm.GptLanguageModeler (the Estimator) on " + spark.sparkContext().master())
                .with("partitions", spark.sparkContext().defaultParallelism()));
        }
        if (torch != null) {
            BenchResult peer = line("torch_train_lm", shape, tokens, torch.threads(), torchMs, torchLoss, flops,
                torch.version()).withAll(torch.settings());
            if (ours) {
                BenchResult mine = lines.get(0);
                mine.with("throughput_vs_torch", Math.round(peer.medianStepMs() / mine.medianStepMs() * 1000) / 1000.0);
                mine.with("loss_first_vs_torch", Math.abs(oursLoss[0] - torchLoss[0]));
            } else {
                peer.with("peer_only", true);
            }
            lines.add(peer);
        }
        return lines;
    }

    private static BenchResult line(String mode, Shape shape, long tokens, int threads, double[] stepMs, double[] loss,
                                    double flops, String blas) {
        GptConfig c = shape.config();
        BenchResult line = BenchResult.fineTune(mode, shape.blocks(), tokens, threads,
                Arrays.copyOfRange(stepMs, WARMUP_STEPS, stepMs.length), blas)
            .with("model", shape.name())
            .with("n_layer", c.layers())
            .with("n_embd", c.hidden())
            .with("n_head", c.heads())
            .with("vocab_size", c.vocabSize())
            .with("block_size", shape.blockSize())
            .with("solver", "adamw")
            .with("step_size", STEP_SIZE)
            .with("dropout", 0.0)
            .with("warmup_steps", WARMUP_STEPS)
            .with("warmup_step_ms", Arrays.copyOf(stepMs, WARMUP_STEPS))
            .with("loss_first", loss[0])
            .with("loss_last", loss[loss.length - 1]);
        return line.with("gflops", Math.round(flops / (line.medianStepMs() * 1e6) * 1000) / 1000.0);
    }

    /**
     * A step's work: three times the forward's products (forward, input and weight gradients),
     * the forward per block of T ids being 2·T·(12·E² per layer (QKV, output, the feed-forward's
     * two) + E·V (the head)) + 2·T²·E per layer (scores and context, causal half counted whole as
     * the peers compute them).
     */
    static double stepFlops(Shape shape) {
        GptConfig c = shape.config();
        double t = shape.blockSize(), e = c.hidden();
        double perLayer = 2 * t * (4 * e * e + 2 * e * c.inner()) + 4 * t * t * e;
        double forward = c.layers() * perLayer + 2 * t * e * c.vocabSize();
        return 3 * forward * shape.blocks();
    }
}
