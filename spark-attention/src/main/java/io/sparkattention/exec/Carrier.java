package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;

import java.io.Serializable;

/**
 * An input row travelling through the shuffles of the head and sequence strategies next to its
 * units, so that the assembled output is joined to the very row it was computed from: no join
 * back to the input, which could see a recomputed (and, for a non-deterministic input, different)
 * row.
 */
final class Carrier implements Serializable {

    private static final long serialVersionUID = 1L;

    private final UnsafeRow row;
    private final AttentionShape shape;

    /**
     * @param row   the input row, every column (a private copy)
     * @param shape the row's attention shape, or null when the job's output for it is null
     */
    Carrier(UnsafeRow row, AttentionShape shape) {
        this.row = row;
        this.shape = shape;
    }

    UnsafeRow row() {
        return row;
    }

    /** Null when the row's output columns are null (a null query). */
    AttentionShape shape() {
        return shape;
    }
}
