package io.sparkattention.ml.lm;

import io.sparkattention.ml.feature.BatchedRows;
import io.sparkattention.ml.feature.EncoderBatches;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.catalyst.InternalRow;

import java.util.List;

/**
 * The jobs {@link GptLanguageModel} runs over its input besides the model's own work: counting each
 * partition's rows (so that a row's sampling key can be its position in the input), and reading
 * every row's ids as the model's work would, without the decoder, so that a bad row is found
 * before any work is spent.
 */
final class InputRows {

    /** Groups for the check: it appends nothing, so their size only bounds the rows held at once. */
    private static final EncoderBatches CHECK_GROUPS = EncoderBatches.defaults();

    /** A row's ids as the check reads them on the executors: a decoder that travels with the task. */
    @FunctionalInterface
    interface Reader extends BatchedRows.Decoder, java.io.Serializable {
    }

    private InputRows() {
    }

    /** Each partition's first row's position in the input: one job counting the rows of each partition. */
    static long[] partitionStarts(JavaRDD<InternalRow> rows) {
        List<Long> counts = rows.mapPartitions(it -> {
            long n = 0;
            for (; it.hasNext(); it.next()) {
                n++;
            }
            return List.of(n).iterator();
        }).collect();
        long[] starts = new long[counts.size()];
        for (int i = 1; i < starts.length; i++) {
            starts[i] = starts[i - 1] + counts.get(i - 1);
        }
        return starts;
    }

    /**
     * Reads every row through {@code read}, naming a bad row as the model's work names it.
     *
     * @return the rows read
     * @throws org.apache.spark.SparkException (undeclared) wrapping the first bad row's error
     */
    static long check(JavaRDD<InternalRow> rows, Reader read, int rowIdIndex,
                      org.apache.spark.sql.types.DataType rowIdType) {
        return rows.mapPartitionsWithIndex((partition, input) -> new BatchedRows(CHECK_GROUPS, partition, input, read,
            ids -> new Object[ids.length][0], 0, rowIdIndex, rowIdType), false).count();
    }
}
