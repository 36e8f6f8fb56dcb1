package io.sparkattention.exec;

import io.sparkattention.rows.RowDataException;

import java.io.Serializable;

/**
 * A per-row computation on Spark's internal (Catalyst) values: {@code ArrayData},
 * {@code InternalRow}, {@code Integer}... in, one Catalyst value out. Working below
 * {@code Row} is what keeps large float matrices from being boxed element by element.
 *
 * <p>One instance is deserialized per task and called by one thread, so implementations may keep
 * transient scratch (e.g. a kernel workspace) between rows.
 *
 * <p>The result must depend on the inputs only (same inputs, same output) and an instance must not
 * change once it is in a column: Spark takes two columns with the same instance over the same
 * inputs for the same result (a persisted one is reused).
 */
public interface RowFunction extends Serializable {

    /**
     * @param inputs the input columns' Catalyst values, in order (null for SQL NULL)
     * @return the Catalyst value of the declared output type, or null
     * @throws RowDataException when the row's data is unusable
     */
    Object apply(Object[] inputs);
}
