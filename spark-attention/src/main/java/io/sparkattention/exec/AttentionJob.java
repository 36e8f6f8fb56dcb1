package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.rows.RowBuffers;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.List;

/**
 * What an attention stage asks of the execution layer, independent of how the work is laid out:
 * which columns to read, how one row's values become a {@link PreparedSequence}, how the
 * attended heads become the stage's output, and how outputs are written back. Each
 * {@link Strategy} schedules the same four steps differently (whole rows, (row, head) units,
 * key blocks), so they all give the same numbers.
 *
 * <p>Serializable and immutable: it travels with the tasks (large weights inside it are broadcast).
 * Its methods must be deterministic and free of side effects — Spark re-runs tasks after failures
 * and may run speculative copies, and the head and sequence strategies call {@link #prepare} and
 * {@link #finish} in different tasks.
 */
public interface AttentionJob extends Serializable {

    /** The columns {@link #prepare} receives, in order. */
    List<String> inputColumns();

    /**
     * The column whose outer length is the query length L. Only {@link Strategy#AUTO} reads it, to
     * size the workload. Default: the first input column.
     */
    default String queryColumn() {
        return inputColumns().get(0);
    }

    /**
     * The column whose outer length is the key length S (for {@link Strategy#AUTO}). Default: the
     * query column (self-attention).
     */
    default String keyColumn() {
        return queryColumn();
    }

    /**
     * Values per position when the query column is flat (its outer length is then L times this),
     * 0 when it is nested (its outer length is L). For {@link Strategy#AUTO}. Default 0.
     */
    default int queryPositionWidth() {
        return 0;
    }

    /** As {@link #queryPositionWidth()}, for the key column. Default 0. */
    default int keyPositionWidth() {
        return 0;
    }

    /** Attention heads per row (for {@link Strategy#AUTO}'s estimates). Default 1. */
    default int numHeads() {
        return 1;
    }

    /** A column that names rows in data error messages, or null. */
    String rowIdColumn();

    /** The columns the stage adds, as one struct (one field per column). */
    StructType outputStruct();

    /** Which attention weights to produce. */
    AttentionWeightsMode weightsMode();

    /** The kernel, built on first use in each JVM. */
    FlashAttention kernel();

    /**
     * Decodes, checks and projects one row.
     *
     * @param values Catalyst values of {@link #inputColumns()}
     * @return the sequence in kernel layout, or null when the row's output is null (null query)
     * @throws RowDataException naming the column when the row's data is unusable
     */
    PreparedSequence prepare(Object[] values);

    /**
     * {@link #prepare(Object[])} that may decode into {@code buffers}' arrays, which the caller
     * reuses for its next row: the result is valid until then. Default: {@link #prepare(Object[])}.
     */
    default PreparedSequence prepare(Object[] values, RowBuffers buffers) {
        return prepare(values);
    }

    /** The kernel's L×(H·dv) output → the stage's L×W output (output projection, if any). */
    float[] finish(float[] attended, int queryLength);

    /**
     * The struct of added columns for one row.
     *
     * @param output  L×W finished output
     * @param weights L×S or H×L×S weights, or null when not requested
     * @param shape   the row's attention shape
     */
    InternalRow encode(float[] output, float[] weights, AttentionShape shape);
}
