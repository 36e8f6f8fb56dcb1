package io.sparkattention.examples.bench;

import io.sparkattention.exec.AutoStrategy;
import io.sparkattention.exec.ExecutionSettings;
import io.sparkattention.exec.Strategy;
import io.sparkattention.exec.WorkloadStats;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.ml.MultiHeadAttentionModel;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.AttentionWeightsMode;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;

import static org.apache.spark.sql.functions.col;

/**
 * Times a whole multi-head self-attention layer through Spark: the {@link MultiHeadAttentionModel}
 * stage (weights from {@link RandomLayer}) on R rows of an L×E {@code query} column generated on
 * the executors from the row ids, in P partitions, each output reduced to its checksum there and
 * the checksums summed by one reduce — {@link SparkBenchmark}'s machinery with the layer in place
 * of the bare attention. In this JVM, round-robin with the stage's repetitions, it can also time
 * the raw layer ({@link RawLayerTrial}) and ONNX Runtime's layer ({@link OrtLayerTrial}) on the
 * same rows and weights; the stage's line then carries {@code throughput_vs_raw_layer} and
 * {@code throughput_vs_ort_layer}: the contender's median time over the stage's.
 */
public final class SparkLayerBenchmark {

    private final SparkSession spark;
    private final Strategy strategy;
    private final int rows;
    private final int partitions;
    private final boolean cacheInput;
    private final int repeat;
    private final MultiHeadAttentionWeights weights;
    private final boolean flat;
    private final ExecutorPeakHeap peakHeap = new ExecutorPeakHeap();

    /**
     * @param spark      the session (local or a cluster)
     * @param strategy   the stage's strategy
     * @param rows       rows (sequences)
     * @param partitions partitions the rows are spread over (at most {@code rows})
     * @param cacheInput generate the rows once per length, cache them and time only the layer and the checksum
     * @param repeat     timed repetitions
     * @param weights    the layer (self-attention: kdim = vdim = E)
     * @param flat       store the query as a flat array&lt;float&gt; column (and get a flat output)
     */
    public SparkLayerBenchmark(SparkSession spark, Strategy strategy, int rows, int partitions, boolean cacheInput,
                               int repeat, MultiHeadAttentionWeights weights, boolean flat) {
        this.spark = spark;
        this.strategy = strategy;
        this.rows = rows;
        this.partitions = partitions;
        this.cacheInput = cacheInput;
        this.repeat = repeat;
        this.weights = weights;
        this.flat = flat;
        spark.sparkContext().addSparkListener(peakHeap);
    }

    /**
     * Times one length. With {@code rawLayer} and {@code ort}, also those contenders in this JVM
     * (local masters only) on the local master's cores. Returns the stage's line, then the raw
     * layer's, then ONNX Runtime's.
     */
    public List<BenchResult> run(int seqLen, boolean rawLayer, boolean ort) {
        peakHeap.reset();
        int embedDim = weights.embedDim();
        Dataset<Row> generated = spark.range(0, rows, 1, partitions)
            .withColumn("query", SparkBenchmark.layout(RandomMatrix.column(col("id"), SparkBenchmark.SEED, seqLen,
                embedDim), "query", embedDim, flat));
        Dataset<Row> input = cacheInput ? generated.persist(StorageLevel.MEMORY_AND_DISK()) : generated;
        if (cacheInput) {
            input.count();
        }
        List<Trial> trials = new ArrayList<>();
        OrtLayer peer = null;
        try {
            MultiHeadAttentionModel model = new MultiHeadAttentionModel(weights).setStrategy(strategy.paramValue());
            // As in SparkBenchmark: the batch strategy's plan is made once, the shuffling ones per repetition.
            Dataset<Double> planned = resolvedStrategy(seqLen) == Strategy.BATCH ? checksums(model, input, flat) : null;
            DoubleSupplier job = planned != null ? () -> SparkBenchmark.once(planned)
                : () -> SparkBenchmark.once(checksums(model, input, flat));
            trials.add(new StageTrial(job, times -> describe(seqLen, times)));
            int cores = spark.sparkContext().defaultParallelism();
            float[][] x = rawLayer || ort ? RandomLayer.rows(rows, seqLen, embedDim) : null;
            if (rawLayer) {
                MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(weights,
                    new FlashAttention(model.attentionSpec()));
                trials.add(new RawLayerTrial(layer, x, seqLen, cores));
            }
            if (ort) {
                peer = new OrtLayer(weights, cores);
                trials.add(new OrtLayerTrial(peer, x, seqLen));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            BenchResult stage = results.get(0);
            if (rawLayer) {
                stage.with("throughput_vs_raw_layer", ratio(results.get(1), stage));
            }
            if (ort) {
                stage.with("throughput_vs_ort_layer", ratio(results.get(results.size() - 1), stage));
            }
            return results;
        } finally {
            trials.forEach(Trial::close);
            if (peer != null) {
                peer.close();
            }
            if (cacheInput) {
                input.unpersist(true);
            }
        }
    }

    /** {@code other}'s median time over {@code stage}'s: the stage's throughput relative to it. */
    static double ratio(BenchResult other, BenchResult stage) {
        return Math.round(other.medianMs() / stage.medianMs() * 1000) / 1000.0;
    }

    /** The strategy the stage runs with: the one asked for, or auto's choice for this workload. */
    private Strategy resolvedStrategy(int seqLen) {
        return strategy != Strategy.AUTO ? strategy : AutoStrategy.choose(
            WorkloadStats.uniform(rows, partitions, weights.numHeads(), seqLen, seqLen),
            spark.sparkContext().defaultParallelism(), AttentionWeightsMode.NONE, ExecutionSettings.from(spark)).strategy();
    }

    private BenchResult describe(int seqLen, double[] times) {
        return BenchResult.layer("spark_layer", seqLen, weights.embedDim(), weights.numHeads(), rows,
                spark.sparkContext().defaultParallelism(), times, SparkBenchmark.executorBlas(spark))
            .with("partitions", partitions)
            .with("cached_input", cacheInput)
            .with("flat_input", flat)
            .with("strategy", strategy.paramValue())
            .with("resolved_strategy", resolvedStrategy(seqLen).paramValue())
            .with("master", spark.sparkContext().master())
            .with("executors", spark.sparkContext().statusTracker().getExecutorInfos().length - 1)
            .with("executor_memory", spark.sparkContext().getConf().get("spark.executor.memory", "1g"))
            .with("executor_peak_heap_mb", peakHeap.maxMb() < 0 ? null : peakHeap.maxMb());
    }

    /** The layer over {@code input}, each row's output reduced to its checksum (see SparkBenchmark#checksums). */
    private static Dataset<Double> checksums(MultiHeadAttentionModel model, Dataset<Row> input, boolean flat) {
        Column output = col("attn_output");
        int width = model.weights().embedDim();
        return model.transform(input).select(flat ? OutputChecksum.ofFlat(output, width) : OutputChecksum.of(output))
            .as(Encoders.DOUBLE());
    }
}
