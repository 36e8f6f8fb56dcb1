package io.sparkattention.ml.training;

/**
 * Watches a fit on the driver, step by step: {@link #onLoss} receives the loss of step i's sample
 * at the weights before step i (the objective history's entry i), for i = 0 … totalIterations − 1,
 * then the loss over every training row at the final weights (no dropout) for i = totalIterations.
 * So a run of maxIter steps reports maxIter + 1 losses, in order, each as soon as it is known; a
 * run that {@code tol} stops before step i reports 0 … i, the last at the final weights. With
 * {@code miniBatchFraction} 1 and no dropout every loss is over every row. A listener only
 * observes: the model, the summary and the sampling are the same with or without one.
 */
@FunctionalInterface
public interface TrainingListener {

    /**
     * One point of the training curve.
     *
     * @param iteration the number of optimiser steps taken so far, from 0
     * @param loss      the weighted mean loss (Σ weighted losses / Σ weights) described above
     */
    void onLoss(int iteration, double loss);

    /**
     * Where step {@code times.step()}'s wall time went on the driver, once its update is applied
     * (after {@link #onLoss} heard its loss). Nothing by default: a profile's hook
     * ({@code bench --fine-tune}'s step split).
     *
     * @param times the step's broadcast, job and update times
     */
    default void onStepTimes(StepTimes times) {
    }
}
