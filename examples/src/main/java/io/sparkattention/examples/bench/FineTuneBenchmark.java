package io.sparkattention.examples.bench;

import io.sparkattention.bert.BertEncoder;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.kernel.Blas;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.classification.BertClassifier;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.training.StepTimes;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeoutException;

/**
 * Times fine-tuning through Spark ({@code bench --fine-tune}): {@link BertClassifier} fitting
 * all-MiniLM-L6-v2 with every layer trainable and a linear head, AdamW, dropout and clipping as
 * Hugging Face's defaults have them, on one batch of B Austen passages ({@link FineTuneBatch};
 * miniBatchFraction 1, so every step trains on exactly those B texts), against PyTorch 2.7.1
 * ({@link TorchRuntime#fineTuner}) doing forward, backward and AdamW on the same weights, head and
 * batch, padded to the longest text with a mask.
 *
 * <p>Round-robin in one JVM: the fit's training listener hears each step's loss on the driver when
 * the step's job has ended; there PyTorch takes one step of its own, timed, while Spark is idle. A
 * step of ours is the time from the listener's return to its next call: the driver's AdamW update,
 * the weights' broadcast and the next step's job (gradient sums up the fixed-order tree). The first
 * {@link #WARMUP_STEPS} steps of each are untimed (JIT, first broadcasts, libtorch's allocator).
 *
 * <p>The roof: when the JVM sees the Vector API, the FMA loop ({@link FmaPeak#beside}) runs one
 * repetition in each call too, on the local master's cores, and every line carries {@code gflops}
 * (a step's work, {@link #stepFlops}, over its median step) and {@code fraction_of_fma} (that over
 * the loop's GFLOP/s); the loop's own line (mode "fma") comes last. Our line's {@code step_split}
 * ({@link StepSplit}) says where the timed steps' wall time went: executor compute, GC, the task
 * results' transfer, the driver's update, the broadcast, idle slots.
 */
public final class FineTuneBenchmark {

    /** Untimed steps of each contender before the timed ones. */
    static final int WARMUP_STEPS = 3;
    /** AdamW's learning rate: Hugging Face Trainer's default. */
    static final double STEP_SIZE = 5e-5;
    /** AdamW's weight decay (biases and LayerNorm weights excluded), as Hugging Face examples set it. */
    static final double WEIGHT_DECAY = 0.01;
    /** Hugging Face's defaults: dropout 0.1, gradient norm clipped at 1. */
    static final double DROPOUT = 0.1, MAX_GRAD_NORM = 1.0;
    /** torch.optim.AdamW's defaults, which the library's AdamW also takes. */
    static final double BETA1 = 0.9, BETA2 = 0.999, EPSILON = 1e-8;
    /** Hugging Face's initializer_range: the head's initial weights' standard deviation. */
    static final double HEAD_INIT_STD = 0.02;
    /** Seed of the head's initial weights and of our dropout. */
    static final long SEED = 42;
    /** The pooling both contenders fine-tune with. */
    static final String POOLING = "mean";
    /**
     * A training step's work over its forward's: the forward, the input gradients and the weight
     * gradients each do the forward's products once (the attention's backward, 2.5 of its forward,
     * is counted as 2); embeddings, LayerNorms, GELU, dropout and AdamW are not counted.
     */
    static final double STEP_WORK_OVER_FORWARD = 3;

    private final SparkSession spark;
    private final BertEncoder encoder;
    private final FineTuneBatch batch;
    private final int partitions;
    private final int repeat;

    /**
     * @param spark      the session (local or a cluster)
     * @param encoder    all-MiniLM-L6-v2, whose weights PyTorch starts from (ours reads the same bundled model)
     * @param batch      every step's texts and labels
     * @param partitions partitions the B rows are laid out in (1 ≤ P ≤ B)
     * @param repeat     timed steps
     */
    public FineTuneBenchmark(SparkSession spark, BertEncoder encoder, FineTuneBatch batch, int partitions, int repeat) {
        if (partitions < 1 || partitions > batch.rows()) {
            throw new IllegalArgumentException("partitions must be in [1, " + batch.rows() + "], got " + partitions);
        }
        this.spark = spark;
        this.encoder = encoder;
        this.batch = batch;
        this.partitions = partitions;
        this.repeat = repeat;
    }

    /**
     * Runs the fit, with PyTorch's steps between ours when {@code torch} is given.
     *
     * @return our line, then PyTorch's
     */
    public List<BenchResult> run(TorchRuntime torch) {
        int k = batch.classes(), hidden = encoder.config().hidden();
        float[] headWeight = headWeight(k, hidden);
        float[] headBias = new float[k];
        int steps = WARMUP_STEPS + repeat;
        Path head = writeHead(headWeight, headBias, k, hidden);
        TorchRuntime.FineTuner tuner = torch == null ? null
            : torch.fineTuner(TorchPeers.tensors(encoder), torchSpec(headWeight, k));
        try {
            Trial loop = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
                ? FmaPeak.beside(stepFlops(), spark.sparkContext().defaultParallelism()) : null;
            StepSplit split = new StepSplit(spark.sparkContext().defaultParallelism(), WARMUP_STEPS + 1, steps);
            spark.sparkContext().addSparkListener(split);
            Clock clock = new Clock(tuner, loop, batch, steps, split);
            double torchInitialLoss = tuner == null ? Double.NaN : tuner.loss(batch.ids(), batch.labels());
            // The fit starts from this benchmark's encoder rather than loading the bundled file again:
            // one copy of its 90 MB of weights on the driver, not two.
            BertClassifier classifier = new BertClassifier().setEncoder(new BertEncoderModel(encoder))
                .setFeaturesCol("input_ids").setLabelCol("label")
                .setNumClasses(k).setTrainableLayers(-1).setPooling(POOLING).setSolver("adamw")
                .setStepSize(STEP_SIZE).setWeightDecay(WEIGHT_DECAY).setWarmupSteps(0).setMaxGradNorm(MAX_GRAD_NORM)
                .setDropout(DROPOUT).setMaxIter(steps + 1).setMiniBatchFraction(1.0).setTol(0.0).setSeed(SEED)
                .setNumPartitions(partitions).setInitialWeightsPath(head.toString()).setTrainingListener(clock);
            SparkContext sc = spark.sparkContext();
            BertClassificationModel model;
            try {
                model = classifier.fit(input());
                // every task end delivered before the split reads them
                sc.listenerBus().waitUntilEmpty();
            } catch (TimeoutException e) {
                throw new IllegalStateException("Spark's listener bus did not drain: " + e.getMessage(), e);
            } finally {
                spark.sparkContext().removeSparkListener(split);
            }
            double[] history = model.summary().objectiveHistory();
            if (clock.calls != steps + 2 || !Double.isFinite(history[history.length - 1])) {
                throw new IllegalStateException("the fit reported " + clock.calls + " losses (expected " + (steps + 2)
                    + "), the last " + history[history.length - 1]);
            }
            double[] ours = Arrays.copyOfRange(clock.oursMs, WARMUP_STEPS, steps);
            BenchResult line = BenchResult.fineTune("fine_tune", batch.rows(), batch.tokens(), sc.defaultParallelism(),
                    ours, Blas.name())
                .with("model", "all-minilm-l6-v2")
                .with("trainable_layers", -1)
                .with("pooling", POOLING)
                .with("num_classes", k)
                .with("solver", "adamw")
                .with("step_size", STEP_SIZE)
                .with("dropout", DROPOUT)
                .with("warmup_steps", WARMUP_STEPS)
                .with("warmup_step_ms", Arrays.copyOf(clock.oursMs, WARMUP_STEPS))
                .with("step_split", split.split(Arrays.stream(ours).sum()))
                .with("loss_first", history[0])
                .with("loss_last", history[history.length - 2])
                .with("partitions", partitions)
                .with("master", sc.master())
                .with("executors", Math.max(1, sc.statusTracker().getExecutorInfos().length - 1));
            List<BenchResult> lines = new ArrayList<>(List.of(line));
            if (tuner != null) {
                double[] theirs = Arrays.copyOfRange(clock.torchMs, WARMUP_STEPS, steps);
                BenchResult peer = BenchResult.fineTune("torch_fine_tune", batch.rows(), batch.tokens(), torch.threads(),
                        theirs, torch.version())
                    .with("batching", "padded to the longest, attention mask")
                    .with("padding_share", Math.round(paddingShare() * 10000) / 10000.0)
                    .with("warmup_steps", WARMUP_STEPS)
                    .with("warmup_step_ms", Arrays.copyOf(clock.torchMs, WARMUP_STEPS))
                    .with("loss_initial_eval", torchInitialLoss)
                    .with("loss_first", clock.torchLoss[0])
                    .with("loss_last", clock.torchLoss[steps - 1])
                    .withAll(torch.settings());
                line.with("throughput_vs_torch", Math.round(peer.medianStepMs() / line.medianStepMs() * 1000) / 1000.0);
                lines.add(peer);
            }
            for (BenchResult l : lines) {
                l.with("gflops", Math.round(stepFlops() / (l.medianStepMs() * 1e6) * 1000) / 1000.0);
            }
            if (loop != null) {
                double[] loopMs = Arrays.copyOfRange(clock.loopMs, WARMUP_STEPS, steps);
                BenchResult roof = loop.result(loopMs, new double[loopMs.length]);
                loop.close();
                FmaPeak.addFractions(lines, roof);
                lines.add(roof);
            }
            return lines;
        } finally {
            if (tuner != null) {
                tuner.close();
            }
            try {
                Files.deleteIfExists(head);
            } catch (IOException ignored) {
                // a temporary file; the run's result stands
            }
        }
    }

    /** The head's initial weights, K×E: normal(0, {@link #HEAD_INIT_STD}) from {@link #SEED}; its biases are 0. */
    static float[] headWeight(int k, int hidden) {
        float[] weight = new float[k * hidden];
        Random random = new Random(SEED);
        for (int i = 0; i < weight.length; i++) {
            weight[i] = (float) (random.nextGaussian() * HEAD_INIT_STD);
        }
        return weight;
    }

    /** PyTorch's side of the fit: this head (zero biases), AdamW, dropout and clipping as ours. */
    static TorchRuntime.FineTuneSpec torchSpec(float[] headWeight, int k) {
        return new TorchRuntime.FineTuneSpec(headWeight, new float[k], k, "cls".equals(POOLING), STEP_SIZE,
            WEIGHT_DECAY, BETA1, BETA2, EPSILON, DROPOUT, MAX_GRAD_NORM);
    }

    /** A step's work, {@link #STEP_WORK_OVER_FORWARD} times the batch's forward ({@link BenchResult#encoderFlops}). */
    double stepFlops() {
        return stepFlops(encoder, batch);
    }

    static double stepFlops(BertEncoder encoder, FineTuneBatch batch) {
        return STEP_WORK_OVER_FORWARD * BenchResult.encoderFlops(batch.ids(), encoder.config().layers(),
            encoder.config().hidden(), encoder.config().intermediate());
    }

    /**
     * The fit's listener: times our steps between its calls and runs one PyTorch step and one
     * repetition of the FMA loop in each of the first {@code steps} calls.
     */
    private static final class Clock implements io.sparkattention.ml.classification.TrainingListener {
        private final TorchRuntime.FineTuner tuner;
        private final Trial loop;
        private final FineTuneBatch batch;
        private final double[] oursMs, torchMs, torchLoss, loopMs;
        private final StepSplit split;
        private long left = -1;
        private int calls;

        Clock(TorchRuntime.FineTuner tuner, Trial loop, FineTuneBatch batch, int steps, StepSplit split) {
            this.tuner = tuner;
            this.split = split;
            this.loop = loop;
            this.batch = batch;
            this.oursMs = new double[steps];
            this.torchMs = new double[steps];
            this.torchLoss = new double[steps];
            this.loopMs = new double[steps];
        }

        @Override
        public void onLoss(int iteration, double loss) {
            long entered = System.nanoTime();
            // call i ends step i's job: the interval since call i − 1 returned is step i − 1's update
            // and step i's broadcast and job
            if (calls >= 1 && calls <= oursMs.length) {
                oursMs[calls - 1] = (entered - left) / 1e6;
            }
            if (calls == oursMs.length) {
                split.timedUntil(System.currentTimeMillis());
            }
            if (tuner != null && calls < torchMs.length) {
                long t0 = System.nanoTime();
                torchLoss[calls] = tuner.step(batch.ids(), batch.labels());
                torchMs[calls] = (System.nanoTime() - t0) / 1e6;
            }
            if (loop != null && calls < loopMs.length) {
                long t0 = System.nanoTime();
                loop.runOnce();
                loopMs[calls] = (System.nanoTime() - t0) / 1e6;
            }
            calls++;
            if (calls == WARMUP_STEPS + 1) {
                split.timedFrom(System.currentTimeMillis());
            }
            left = System.nanoTime();
        }

        @Override
        public void onStepTimes(StepTimes times) {
            split.step(times);
        }
    }

    /** The batch as rows of (input_ids, label). */
    private Dataset<Row> input() {
        StructType schema = new StructType()
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), false)
            .add("label", DataTypes.DoubleType, false);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < batch.rows(); i++) {
            Integer[] ids = Arrays.stream(batch.ids()[i]).boxed().toArray(Integer[]::new);
            rows.add(RowFactory.create(ids, (double) batch.labels()[i]));
        }
        return spark.createDataFrame(rows, schema);
    }

    /** The initial head as a safetensors file of classifier.weight [K, E] and classifier.bias [K]. */
    private static Path writeHead(float[] weight, float[] bias, int k, int hidden) {
        try {
            Path file = Files.createTempFile("bench-fine-tune-head", ".safetensors");
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            tensors.put("classifier.weight", Tensor.f32(weight, k, hidden));
            tensors.put("classifier.bias", Tensor.f32(bias, k));
            SafeTensorsWriter.write(file, tensors, Map.of());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("the initial head: " + e.getMessage(), e);
        }
    }

    /** The share of PyTorch's padded positions that are padding. */
    private double paddingShare() {
        return paddingShare(batch);
    }

    static double paddingShare(FineTuneBatch batch) {
        int longest = Arrays.stream(batch.ids()).mapToInt(r -> r.length).max().orElse(0);
        return 1 - (double) batch.tokens() / ((long) longest * batch.rows());
    }
}
