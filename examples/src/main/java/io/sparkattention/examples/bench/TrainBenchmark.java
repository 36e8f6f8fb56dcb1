package io.sparkattention.examples.bench;

import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.TileOps;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

import java.util.ArrayList;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

/**
 * Times training through Spark: {@link AttentionClassifier} fitted with Adam on B random
 * full-length rows of L tokens of width E, every row in every step (miniBatchFraction = 1), as
 * PyTorch's peer ({@code examples/peers/torch_train.py}) trains the reference module.
 *
 * <p>The rows are generated on the executors from their ids ({@link RandomMatrix}; label = id mod
 * {@link #NUM_CLASSES}) in as many partitions as the cluster has cores (or as {@link #spreadOver}
 * says), and the fit decodes and caches them once for all its steps. The first length is preceded by an untimed fit of
 * {@link #WARMUP_FIT_STEPS} steps on a few rows of the same shape, which gets the JVM's compilers
 * through the layer's and the kernel's loops (the Vector API code runs many times slower until
 * C2 has compiled it). The timed fit runs {@link #WARMUP_STEPS} + R steps. Each step is
 * one Spark job, and a step's time is the interval between its job's start and the next step's
 * (the last step's next job is the fit's final loss): the broadcast of the weights, the job over
 * the cached rows, the partition sums' combination and the driver's Adam update, everything a
 * step costs and nothing else. The job start times come from Spark's scheduler ({@link StepClock}).
 *
 * <p>With PyTorch as a peer ({@link #against}), {@link TorchTrainPeer} takes PyTorch's step on the
 * same rows from the same initial weights in the fit's training listener, between our steps;
 * the time its call holds the driver is taken out of our step's interval.
 */
public final class TrainBenchmark {

    /** Untimed steps before the timed ones (JIT, first broadcasts); the PyTorch peer's default too. */
    static final int WARMUP_STEPS = 3;
    /** Steps of the untimed fit before the first length. */
    static final int WARMUP_FIT_STEPS = 10;
    /** Rows of the untimed fit, per core of the cluster (at most B). */
    static final int WARMUP_ROWS_PER_CORE = 2;
    /** Classes of the random labels; the PyTorch peer's default too. */
    static final int NUM_CLASSES = 4;
    /** Adam's learning rate, PyTorch's default and the peer's. */
    static final double STEP_SIZE = 1e-3;
    /** Seed of the generated rows and of the initial weights. */
    static final long SEED = 42;
    /** The job group of the timed fit. */
    static final String JOB_GROUP = "spark-attention bench --train";

    private final SparkSession spark;
    private final int embedDim;
    private final int numHeads;
    private final int rowsPerStep;
    private final boolean causal;
    private final int repeat;
    private final ExecutorPeakHeap peakHeap = new ExecutorPeakHeap();
    private boolean warmedUp;
    /** The partitions of the timed fit's rows; 0: as many as the cluster's cores (at most B). */
    private int partitions;
    /** PyTorch, trained beside the fit; null: ours alone. */
    private TorchRuntime torch;

    /**
     * @param spark       the session (local or a cluster)
     * @param embedDim    E, a multiple of {@code numHeads}
     * @param numHeads    H
     * @param rowsPerStep B, the rows of every step
     * @param causal      causal self-attention
     * @param repeat      timed steps
     */
    public TrainBenchmark(SparkSession spark, int embedDim, int numHeads, int rowsPerStep, boolean causal, int repeat) {
        this.spark = spark;
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.rowsPerStep = rowsPerStep;
        this.causal = causal;
        this.repeat = repeat;
        spark.sparkContext().addSparkListener(peakHeap);
    }

    /** Spreads the timed fit's B rows over {@code partitions} partitions (1 ≤ partitions ≤ B) instead of one per core. */
    public TrainBenchmark spreadOver(int partitions) {
        if (partitions < 1 || partitions > rowsPerStep) {
            throw new IllegalArgumentException("partitions must be in [1, " + rowsPerStep + "], got " + partitions);
        }
        this.partitions = partitions;
        return this;
    }

    /** Trains PyTorch's classifier beside every timed fit ({@code --peer torch}). */
    public TrainBenchmark against(TorchRuntime torch) {
        this.torch = torch;
        return this;
    }

    /**
     * Fits the classifier on rows of {@code seqLen} tokens and returns the step times' line (mode
     * {@code train}), then PyTorch's ({@code torch_train}) when it runs beside.
     */
    public List<BenchResult> run(int seqLen) {
        SparkContext sc = spark.sparkContext();
        int cores = sc.defaultParallelism();
        int partitions = this.partitions > 0 ? this.partitions : Math.min(rowsPerStep, cores);
        int steps = WARMUP_STEPS + repeat;
        if (!warmedUp) {
            int rows = Math.min(rowsPerStep, WARMUP_ROWS_PER_CORE * cores);
            classifier(WARMUP_FIT_STEPS).fit(input(rows, seqLen, Math.min(rows, cores)));
            warmedUp = true;
        }
        AttentionClassifier classifier = classifier(steps);
        String[] machine = executorMachine();
        peakHeap.reset();
        StepClock clock = new StepClock(JOB_GROUP);
        sc.addSparkListener(clock);
        AttentionClassificationModel model;
        List<Long> starts;
        TorchTrainPeer peer = torch == null ? null : new TorchTrainPeer(torch, new AttentionClassifierNetwork(embedDim,
            numHeads, NUM_CLASSES, causal, true, Pooling.MEAN), SEED, STEP_SIZE, rowsPerStep, seqLen, steps);
        if (peer != null) {
            classifier.setTrainingListener(peer);
        }
        try {
            sc.setJobGroup(JOB_GROUP, "fit of " + steps + " steps", false);
            try {
                model = classifier.fit(input(rowsPerStep, seqLen, partitions));
            } finally {
                sc.clearJobGroup();
            }
            starts = clock.startsOf(sc);
        } finally {
            sc.removeSparkListener(clock);
            if (peer != null) {
                peer.close();
            }
        }
        double[] history = model.summary().objectiveHistory();
        if (model.summary().totalIterations() != steps || starts.size() < steps + 1) {
            throw new IllegalStateException("the fit ran " + model.summary().totalIterations() + " steps in "
                + starts.size() + " jobs; expected " + steps + " steps, one job each and a final loss job");
        }
        if (!Double.isFinite(history[steps])) {
            throw new IllegalStateException("training produced a non-finite loss " + history[steps]);
        }
        // The last steps + 1 jobs are the steps' and the final loss's; earlier ones decode and check the rows.
        List<Long> stepStarts = starts.subList(starts.size() - steps - 1, starts.size());
        double[] warmupMs = new double[WARMUP_STEPS], stepMs = new double[repeat];
        for (int i = 0; i < steps; i++) {
            double ms = stepStarts.get(i + 1) - stepStarts.get(i) - (peer == null ? 0 : peer.heldMs(i));
            if (i < WARMUP_STEPS) {
                warmupMs[i] = ms;
            } else {
                stepMs[i - WARMUP_STEPS] = ms;
            }
        }
        BenchResult ours = BenchResult.training(embedDim, numHeads, seqLen, rowsPerStep, causal, cores, stepMs, machine[0])
            .with("tile_ops", machine[1])
            .with("warmup_steps", WARMUP_STEPS)
            .with("warmup_step_ms", warmupMs)
            .with("num_classes", model.numClasses())
            .with("parameters", model.parameters().length)
            .with("loss_first", history[0])
            .with("loss_last", history[steps])
            .with("partitions", partitions)
            .with("master", sc.master())
            .with("executors", sc.statusTracker().getExecutorInfos().length - 1)
            .with("executor_peak_heap_mb", peakHeap.maxMb() < 0 ? null : peakHeap.maxMb());
        List<BenchResult> lines = new ArrayList<>(List.of(ours));
        if (peer != null) {
            lines.add(torchLine(peer, seqLen, history[0], history[steps], ours));
        }
        return lines;
    }

    /** PyTorch's line, and the comparison fields on ours: its throughput over PyTorch's, both first and last losses. */
    private BenchResult torchLine(TorchTrainPeer peer, int seqLen, double oursFirst, double oursLast,
                                  BenchResult ours) {
        double[] ms = peer.stepMs(), loss = peer.loss();
        double[] warmupMs = java.util.Arrays.copyOfRange(ms, 0, WARMUP_STEPS);
        double[] timedMs = java.util.Arrays.copyOfRange(ms, WARMUP_STEPS, ms.length);
        BenchResult line = BenchResult.training(embedDim, numHeads, seqLen, rowsPerStep, causal, torch.threads(),
            timedMs, torch.version())
            .with("mode", "torch_train")
            .with("warmup_steps", WARMUP_STEPS)
            .with("warmup_step_ms", warmupMs)
            .with("num_classes", NUM_CLASSES)
            .with("loss_first", loss[0])
            .with("loss_last", peer.finalLoss())
            .withAll(torch.settings());
        ours.with("throughput_vs_torch", Math.round(line.medianStepMs() / ours.medianStepMs() * 1000) / 1000.0)
            .with("loss_first_vs_torch", Math.abs(oursFirst - loss[0]))
            .with("loss_last_vs_torch", Math.abs(oursLast - peer.finalLoss()));
        return line;
    }

    /** The classifier: Adam on every row in every step, {@code steps} steps, no early stop. */
    private AttentionClassifier classifier(int steps) {
        return new AttentionClassifier().setFeaturesCol("tokens").setLabelCol("label")
            .setNumHeads(numHeads).setResidual(true).setPooling("mean").setCausal(causal).setSolver("adam").setStepSize(STEP_SIZE).setMaxIter(steps)
            .setMiniBatchFraction(1.0).setTol(0.0).setSeed(SEED);
    }

    /**
     * {@code rows} rows: {@code tokens} L×E uniform in [−1, 1) and {@code label} = id mod K,
     * declared as a K-class nominal attribute so the class count does not depend on the rows.
     */
    private Dataset<Row> input(int rows, int seqLen, int partitions) {
        return spark.range(0, rows, 1, partitions)
            .withColumn("tokens", RandomMatrix.column(col("id"), SEED, seqLen, embedDim))
            .withColumn("label", col("id").mod(lit(NUM_CLASSES)).cast(DataTypes.DoubleType)
                .as("label", NominalAttribute.defaultAttr().withName("label").withNumValues(NUM_CLASSES).toMetadata()));
    }

    /** The executors' BLAS and tile arithmetic (they may differ from the driver's). */
    private String[] executorMachine() {
        List<String[]> names = JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(List.of(0), 1).map(x -> new String[] {Blas.name(), TileOps.get().name()}).collect();
        return names.get(0);
    }
}
