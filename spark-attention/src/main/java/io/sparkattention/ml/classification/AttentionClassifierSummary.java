package io.sparkattention.ml.classification;

import java.io.Serializable;
import java.util.Arrays;

/**
 * What {@link AttentionClassifier#fit} did, like MLlib's training summaries: the objective
 * history and the number of optimiser steps taken.
 *
 * <p>{@code objectiveHistory()[i]}, for i below {@link #totalIterations()}, is the weighted mean
 * cross-entropy Σw·CE/Σw over step i's sample (every row when {@code miniBatchFraction} is 1)
 * at the weights before step i. The last entry is the loss at the final weights: over every row
 * when all {@code maxIter} steps ran, or over the sample of the step that was not taken when the
 * relative loss change fell below {@code tol}. So the history has {@code totalIterations + 1}
 * entries ({@code maxIter + 1} without early stopping). A {@link TrainingListener} hears the
 * full-batch loss at every step, whatever the fraction.
 */
public final class AttentionClassifierSummary implements Serializable {

    private static final long serialVersionUID = 1L;

    private final double[] objectiveHistory;
    private final int totalIterations;

    AttentionClassifierSummary(double[] objectiveHistory, int totalIterations) {
        this.objectiveHistory = objectiveHistory.clone();
        this.totalIterations = totalIterations;
    }

    /**
     * The loss before each step and after the last (see the class comment).
     *
     * @return a copy of the history, {@link #totalIterations()} + 1 entries
     */
    public double[] objectiveHistory() {
        return objectiveHistory.clone();
    }

    /**
     * The optimiser steps applied.
     *
     * @return maxIter, or fewer when {@code tol} stopped training early
     */
    public int totalIterations() {
        return totalIterations;
    }

    @Override
    public String toString() {
        return "AttentionClassifierSummary: totalIterations=" + totalIterations + ", objectiveHistory="
            + Arrays.toString(objectiveHistory);
    }
}
