package io.sparkattention.exec;

import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.sparkinternal.InternalFrames;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The head and sequence strategies as a chain of Spark stages over the input's internal rows:
 * <ol>
 *   <li><b>split</b> ({@link RowSplitter}): each row is prepared once (decoding, projections) and
 *       cut into units; the row itself travels on as a {@link Carrier};</li>
 *   <li><b>units</b> ({@link UnitRunner}): the units, spread round-robin over
 *       {@code defaultParallelism × tasksPerCore} partitions ({@link SlotPartitioner});</li>
 *   <li><b>merge</b> (sequence only, {@link PartialMerger}): a (row, head, query block)'s
 *       partials, sorted by key block, folded with the log-sum-exp combiner;</li>
 *   <li><b>assemble</b> ({@link RowAssembler}): each row's results, sorted, written into place;
 *       {@code finish} and {@code encode}; back in the row's input partition.</li>
 * </ol>
 * Every stage is a pure function of its records and every key is derived from row content, so a
 * task re-run after a failure, an executor loss or a speculative copy produces the same records
 * as the first attempt, and the output does not depend on the number of partitions.
 *
 * <p>Like {@code Dataset.rdd}, building the chain plans the input, which runs the input's own
 * shuffle stages (if it has any) when adaptive execution is on; the attention itself runs when
 * the output is used.
 */
final class UnitExecution {

    private UnitExecution() {
    }

    /** {@code df} with the job's output columns appended, computed with {@code strategy}'s units. */
    static Dataset<Row> transform(Dataset<Row> df, AttentionJob job, Strategy strategy, ExecutionSettings settings) {
        StructType schema = df.schema();
        RDD<InternalRow> input = InternalFrames.rows(df);
        int inputPartitions = input.getNumPartitions();
        int unitPartitions = settings.unitPartitions(df.sparkSession().sparkContext().defaultParallelism());

        Splitter splitter = Splitter.of(strategy, job.kernel().spec(), settings);
        JavaPairRDD<UnitKey, Object> split = JavaPairRDD.fromJavaRDD(
            input.toJavaRDD().mapPartitionsWithIndex(new RowSplitter(job, splitter, schema), false));
        JavaPairRDD<UnitKey, Object> results = split
            .partitionBy(new SlotPartitioner(unitPartitions))
            .mapPartitionsToPair(new UnitRunner(job.kernel().spec(), job.weightsMode() != AttentionWeightsMode.NONE));
        if (strategy == Strategy.SEQUENCE) {
            results = results
                .repartitionAndSortWithinPartitions(new SlotPartitioner(unitPartitions), UnitKey.ORDER)
                .mapPartitionsToPair(new PartialMerger());
        }
        JavaRDD<InternalRow> rows = results
            .repartitionAndSortWithinPartitions(new InputPartitioner(inputPartitions), UnitKey.ORDER)
            .mapPartitions(new RowAssembler(job));

        StructType outSchema = schema;
        for (StructField f : job.outputStruct().fields()) {
            outSchema = outSchema.add(f);
        }
        return InternalFrames.frame(df, rows.rdd(), outSchema);
    }
}
