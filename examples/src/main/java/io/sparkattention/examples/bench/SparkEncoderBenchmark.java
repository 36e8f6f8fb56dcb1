package io.sparkattention.examples.bench;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.ml.feature.BertEncoderModel;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

import java.util.ArrayList;
import java.util.List;

/**
 * Times the encoder stage through Spark ({@code bench --encoder --spark}): the
 * {@link BertEncoderModel} stage over the benchmark's texts as a cached {@code input_ids} column
 * in P partitions, each row's sentence embedding summed into a checksum on the executors and the
 * checksums summed by one reduce. The stage is planned once and every repetition is one job over
 * that plan. With {@code rawEncoder}, the raw encoder ({@link RawEncoderTrial}) runs on the same
 * texts in this JVM on the local master's cores, round-robin with the stage's repetitions; the
 * stage's line then carries {@code throughput_vs_raw_encoder}: the raw encoder's median time over
 * the stage's.
 */
public final class SparkEncoderBenchmark {

    private static final StructType IDS = new StructType().add("input_ids",
        DataTypes.createArrayType(DataTypes.IntegerType, false), false);

    private final SparkSession spark;
    private final BertEncoder encoder;
    private final int partitions;
    private final int repeat;
    private final ExecutorPeakHeap peakHeap = new ExecutorPeakHeap();

    public SparkEncoderBenchmark(SparkSession spark, BertEncoder encoder, int partitions, int repeat) {
        this.spark = spark;
        this.encoder = encoder;
        this.partitions = partitions;
        this.repeat = repeat;
        spark.sparkContext().addSparkListener(peakHeap);
    }

    /** Times {@code texts}; returns the stage's line, then the raw encoder's. */
    public List<BenchResult> run(EncoderTexts texts, boolean rawEncoder) {
        peakHeap.reset();
        List<Row> rows = new ArrayList<>(texts.count());
        for (int[] ids : texts.ids()) {
            Integer[] boxed = new Integer[ids.length];
            for (int j = 0; j < ids.length; j++) {
                boxed[j] = ids[j];
            }
            rows.add(RowFactory.create((Object) boxed));
        }
        Dataset<Row> input = spark.createDataFrame(rows, IDS).repartition(partitions)
            .persist(StorageLevel.MEMORY_AND_DISK());
        input.count();
        List<Trial> trials = new ArrayList<>();
        try {
            Dataset<Double> planned = new BertEncoderModel(encoder).transform(input).select("embedding")
                .map((MapFunction<Row, Double>) r -> sum(r.getAs(0)), Encoders.DOUBLE());
            trials.add(new StageTrial(() -> SparkBenchmark.once(planned), times -> describe(texts, times)));
            if (rawEncoder) {
                trials.add(new RawEncoderTrial(encoder, texts, spark.sparkContext().defaultParallelism()));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            if (rawEncoder) {
                results.get(0).with("throughput_vs_raw_encoder", SparkLayerBenchmark.ratio(results.get(1),
                    results.get(0)));
            }
            return results;
        } finally {
            trials.forEach(Trial::close);
            input.unpersist(true);
        }
    }

    private static double sum(Vector v) {
        double s = 0;
        for (double x : v.toArray()) {
            s += x;
        }
        return s;
    }

    private BenchResult describe(EncoderTexts texts, double[] times) {
        BertConfig c = encoder.config();
        return BenchResult.encoder("spark_encoder", texts, spark.sparkContext().defaultParallelism(), times,
                BenchResult.encoderFlops(texts.ids(), c.layers(), c.hidden(), c.intermediate()),
                SparkBenchmark.executorBlas(spark))
            .with("partitions", partitions)
            .with("cached_input", true)
            .with("master", spark.sparkContext().master())
            .with("executors", spark.sparkContext().statusTracker().getExecutorInfos().length - 1)
            .with("executor_memory", spark.sparkContext().getConf().get("spark.executor.memory", "1g"))
            .with("executor_peak_heap_mb", peakHeap.maxMb() < 0 ? null : peakHeap.maxMb());
    }
}
