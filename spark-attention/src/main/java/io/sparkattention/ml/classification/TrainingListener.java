package io.sparkattention.ml.classification;

/**
 * Watches {@link AttentionClassifier#fit} on the driver, step by step: {@link #onLoss} receives
 * the full-batch loss Σw·CE/Σw over every training row, at the weights before step i for
 * i = 0 … totalIterations − 1, and at the final weights for i = totalIterations. So a run of
 * maxIter steps reports maxIter + 1 losses, in order, each as soon as it is known; a run that
 * {@code tol} stops before step i reports 0 … i, the last at the final weights.
 *
 * <p>With {@code miniBatchFraction} 1 these are the objective history's own entries; below 1 the
 * history holds each step's sample loss, and the stage runs one more Spark job per step (only
 * when a listener or {@code tol} is set) for the full-batch loss. A listener only observes: the model, the
 * summary and the sampling are the same with or without one.
 */
@FunctionalInterface
public interface TrainingListener {

    /**
     * One point of the training curve.
     *
     * @param iteration the number of optimiser steps taken so far, from 0
     * @param loss      the weighted mean cross-entropy over every training row at those weights
     */
    void onLoss(int iteration, double loss);
}
