package io.sparkattention.ml.training;

import java.io.Serializable;

/**
 * A training row's key: its position in the training data, from 0, the same on every step and
 * retry. The engine samples by it ({@link Sampling}); a network keys its dropout masks by it.
 *
 * @param <R> the row type
 */
@FunctionalInterface
public interface RowKey<R> extends Serializable {

    /** The row's key, ≥ 0. */
    long of(R row);
}
