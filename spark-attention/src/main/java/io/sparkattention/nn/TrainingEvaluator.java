package io.sparkattention.nn;

import java.util.List;

/**
 * A {@link TrainableNetwork} at one point of its parameters: the weighted losses of a run of rows
 * and their gradient. The engine hands each task's sampled rows in runs (in partition and row
 * order) to {@link #add}, which may stack a run's rows through every product; a row's loss and its
 * contribution to the gradient do not depend on the other rows of its run (the encoder stage's
 * rule, on the Vector API and on BLAS), so only the summation order, fixed by the engine, shapes
 * a step's bits. The step's objective is {@code Σ add(...) / Σ weight(row)} and its gradient the
 * flushed sums over the same {@code Σ weight(row)}.
 *
 * @param <R> the network's training row
 */
public interface TrainingEvaluator<R> {

    /**
     * The row's share of the step's denominator: its weight for a classifier (the fixtures'
     * {@code Σ wᵢ·CEᵢ / Σ wᵢ}), its weight × its predicted tokens for a language model (the sum of
     * every row's −log-likelihood over the sum of its predicted tokens). Finite and ≥ 0.
     */
    double weight(R row);

    /**
     * Adds the rows' gradient of Σ (the row's weighted loss) into the pending sums, in row order,
     * and returns that Σ. The rows' loss is their weight × loss for a classifier, their weight ×
     * summed −log-likelihood for a language model (so that its ratio to Σ {@link #weight} is the
     * objective).
     *
     * @throws IllegalArgumentException naming the row (by its key) and what does not fit
     */
    double add(List<R> rows);

    /** Σ of the rows' weighted losses in evaluation mode (no dropout), no gradient. */
    double loss(List<R> rows);

    /**
     * Adds the pending sums (the rows {@link #add}ed since the last flush) into {@code sums} and
     * clears them; nothing when no row is pending.
     */
    void flushInto(GradientSums sums);

    /** Clears the pending sums without adding them (what a failed earlier task left on this thread). */
    void discardPending();

    /**
     * Ends this evaluator's use: its pending sums are dropped and its working buffers (pending
     * gradient, records, scratch) become a spare for the next evaluator bound to the same
     * network ({@link SpareBuffers}). It must not be used afterwards (a use throws). The engine
     * releases a step's evaluator when the task that used it ends; an evaluator never released
     * leaves its buffers to the collector. Nothing for an evaluator without such buffers.
     */
    default void release() {
    }
}
