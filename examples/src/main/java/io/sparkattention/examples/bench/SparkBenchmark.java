package io.sparkattention.examples.bench;

import io.sparkattention.exec.AutoStrategy;
import io.sparkattention.exec.ExecutionSettings;
import io.sparkattention.exec.Strategy;
import io.sparkattention.exec.WorkloadStats;
import io.sparkattention.kernel.Blas;
import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.nn.AttentionWeightsMode;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.ReduceFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

import java.util.List;
import java.util.function.DoubleSupplier;

import static org.apache.spark.sql.functions.col;

/**
 * Times attention through Spark: the {@link ScaledDotProductAttention} stage with
 * {@code numHeads = BH} on R rows (in P partitions, one row each by default), each holding an
 * n×(BH·d) query, key and value — the kernel benchmark's problem with R·BH heads, as a DataFrame.
 * The matrices are generated on the executors from the row's id ({@link RandomMatrix}) and the
 * output is consumed there ({@link OutputChecksum} summed by a reduce). One repetition is one
 * job: generate (unless the input is cached), attend with the chosen strategy, checksum, and only
 * one number comes back to the driver. With the batch strategy the stage is planned once per
 * length and every job runs that plan; the shuffling strategies are planned per repetition.
 * Generating the inputs is a fifth of the executors' time at n = 512.
 */
public final class SparkBenchmark {

    /** Seed of the generated inputs (query, key and value get seeds SEED, SEED+1, SEED+2). */
    static final long SEED = 42;
    /** Length of the untimed warm-up run (started executors, loaded classes, compiled hot loops). */
    static final int WARMUP_LENGTH = 1024;

    private final SparkSession spark;
    private final Strategy strategy;
    private final int rows;
    private final int partitions;
    private final boolean cacheInput;
    private final boolean causal;
    private final int repeat;
    private final Integer blockSize;
    private final boolean flat;
    private final ExecutorPeakHeap peakHeap = new ExecutorPeakHeap();

    /**
     * @param spark     the session (local or a cluster)
     * @param strategy  the stage's strategy
     * @param rows      rows (sequences)
     * @param partitions partitions the rows are spread over (at most {@code rows})
     * @param cacheInput generate the rows once per length, cache them on the executors and time only
     *                   the attention and the checksum
     * @param causal    top-left causal mask
     * @param repeat    timed repetitions
     * @param blockSize kernel tile size, or null for the kernel's default
     * @param flat      store query, key and value as flat array&lt;float&gt; columns (and get a flat output)
     */
    public SparkBenchmark(SparkSession spark, Strategy strategy, int rows, int partitions, boolean cacheInput,
                          boolean causal, int repeat, Integer blockSize, boolean flat) {
        this.spark = spark;
        this.strategy = strategy;
        this.rows = rows;
        this.partitions = partitions;
        this.cacheInput = cacheInput;
        this.causal = causal;
        this.repeat = repeat;
        this.blockSize = blockSize;
        this.flat = flat;
        spark.sparkContext().addSparkListener(peakHeap);
    }

    /** One untimed run at {@link #WARMUP_LENGTH}. */
    public void warmUp(int headDim, int batchHeads) {
        once(checksums(input(WARMUP_LENGTH, headDim, batchHeads), headDim, batchHeads));
    }

    /**
     * Times one configuration; with {@code kernel}, also the raw kernel on the same R·BH heads in
     * this JVM, repetition by repetition after the stage's (local masters only: the kernel runs
     * on the driver). Returns the stage's line, then the kernel's; the stage's carries
     * {@code throughput_vs_kernel}, the kernel's median time over its own.
     */
    public List<BenchResult> run(int seqLen, int headDim, int batchHeads, KernelBenchmark kernel) {
        peakHeap.reset();
        Dataset<Row> generated = input(seqLen, headDim, batchHeads);
        Dataset<Row> input = cacheInput ? generated.persist(StorageLevel.MEMORY_AND_DISK()) : generated;
        if (cacheInput) {
            input.count();
        }
        try {
            // The batch strategy does not shuffle: its Dataset is planned once and every repetition
            // is one job over that plan. The head and sequence strategies shuffle, and a job over a
            // planned RDD whose shuffle outputs exist skips the stages that wrote them, so those
            // are planned again for every repetition.
            Dataset<Double> planned = resolvedStrategy(seqLen, batchHeads) == Strategy.BATCH
                ? checksums(input, headDim, batchHeads) : null;
            DoubleSupplier job = planned != null ? () -> once(planned)
                : () -> once(checksums(input, headDim, batchHeads));
            // Untimed repetitions until settled: the Spark JVM goes on compiling its job machinery
            // (task serialization, closure cleaning, scheduling) long after the kernel has
            // settled, so one warm-up run leaves the first timed repetitions slower.
            Trial stage = new StageTrial(job, times -> describe(seqLen, headDim, batchHeads, times));
            if (kernel == null) {
                return Interleaved.time(List.of(stage), repeat);
            }
            try (Trial raw = kernel.trial(new KernelBenchmark.Problem(seqLen, headDim, rows * batchHeads, seqLen))) {
                List<BenchResult> both = Interleaved.time(List.of(stage, raw), repeat);
                both.get(0).with("throughput_vs_kernel",
                    Math.round(both.get(1).medianMs() / both.get(0).medianMs() * 1000) / 1000.0);
                return both;
            }
        } finally {
            if (cacheInput) {
                input.unpersist(true);
            }
        }
    }

    /** The strategy the stage runs with: the one asked for, or auto's choice for this workload. */
    private Strategy resolvedStrategy(int seqLen, int batchHeads) {
        return strategy != Strategy.AUTO ? strategy : AutoStrategy.choose(
            WorkloadStats.uniform(rows, partitions, batchHeads, seqLen, seqLen),
            spark.sparkContext().defaultParallelism(), AttentionWeightsMode.NONE, ExecutionSettings.from(spark)).strategy();
    }

    private BenchResult describe(int seqLen, int headDim, int batchHeads, double[] times) {
        int cores = spark.sparkContext().defaultParallelism();
        ExecutionSettings settings = ExecutionSettings.from(spark);
        Strategy resolved = resolvedStrategy(seqLen, batchHeads);
        BenchResult result = new BenchResult("spark", seqLen, headDim, batchHeads, causal, cores, times,
            BenchResult.flops(seqLen, headDim, rows * batchHeads, causal), executorBlas(spark))
            .with("rows", rows)
            .with("partitions", partitions)
            .with("cached_input", cacheInput)
            .with("flat_input", flat)
            .with("strategy", strategy.paramValue())
            .with("resolved_strategy", resolved.paramValue())
            .with("master", spark.sparkContext().master())
            .with("executors", spark.sparkContext().statusTracker().getExecutorInfos().length - 1)
            .with("executor_memory", spark.sparkContext().getConf().get("spark.executor.memory", "1g"))
            .with("executor_peak_heap_mb", peakHeap.maxMb() < 0 ? null : peakHeap.maxMb());
        if (resolved == Strategy.SEQUENCE) {
            result.with("sequence_block_rows", settings.sequenceBlockRows());
        }
        return result;
    }

    /** The rows of n×(BH·d) query, key and value, generated on the executors when evaluated. */
    private Dataset<Row> input(int n, int d, int bh) {
        int width = bh * d;
        return spark.range(0, rows, 1, partitions)
            .withColumn("query", layout(RandomMatrix.column(col("id"), SEED, n, width), "query", width, flat))
            .withColumn("key", layout(RandomMatrix.column(col("id"), SEED + 1, n, width), "key", width, flat))
            .withColumn("value", layout(RandomMatrix.column(col("id"), SEED + 2, n, width), "value", width, flat));
    }

    /** A generated matrix column as it is stored: nested, or flat with its width in the metadata. */
    static Column layout(Column nested, String name, int width, boolean flat) {
        return flat ? SequenceLayout.flatten(nested, name, width) : nested;
    }

    /**
     * The stage over {@code input}, each row's output reduced to its checksum. A Dataset keeps
     * its planned RDD, so with the batch strategy every repetition over one of these is one job
     * over the same plan, as in a batch job that transforms a large table once. Planning the
     * stage again for every repetition would add a cost no such job pays (the driver's analysis
     * and planning).
     */
    private Dataset<Double> checksums(Dataset<Row> input, int d, int bh) {
        ScaledDotProductAttention stage = new ScaledDotProductAttention().setKeyCol("key").setValueCol("value")
            .setNumHeads(bh).setCausal(causal).setStrategy(strategy.paramValue());
        if (blockSize != null) {
            stage.setBlockSize(blockSize);
        }
        Column output = col("attn_output");
        return stage.transform(input).select(flat ? OutputChecksum.ofFlat(output, bh * d)
            : OutputChecksum.of(output)).as(Encoders.DOUBLE());
    }

    /** One job: attends and checksums every row; returns the sum of the rows' checksums. */
    static double once(Dataset<Double> checksums) {
        // A reduce is one job with no shuffle; an aggregate would add a shuffle (a file per task)
        // and, with adaptive execution, a second job to every repetition.
        return checksums.reduce((ReduceFunction<Double>) Double::sum);
    }

    /** The BLAS the executors use (they may differ from the driver's). */
    static String executorBlas(SparkSession spark) {
        List<String> names = JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(List.of(0), 1).map(x -> Blas.name()).collect();
        return names.get(0);
    }
}
