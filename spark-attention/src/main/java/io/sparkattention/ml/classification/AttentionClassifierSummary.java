package io.sparkattention.ml.classification;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.util.Arrays;

/**
 * What {@link AttentionClassifier#fit} did, like MLlib's {@code LogisticRegressionTrainingSummary}
 * for a multiclass user: the training set's figures of {@link AttentionClassificationSummary}
 * (predictions, accuracy, per-label and weighted precision, recall and F-measure) plus the
 * objective history and the number of optimiser steps taken.
 *
 * <p>{@code objectiveHistory()[i]}, for i below {@link #totalIterations()}, is the weighted mean
 * cross-entropy Σw·CE/Σw over step i's sample (every row when {@code miniBatchFraction} is 1)
 * at the weights before step i. The last entry is the loss over every row at the final weights,
 * after maxIter steps or when {@code tol} stopped training. So the history has
 * {@code totalIterations + 1} entries ({@code maxIter + 1} without early stopping). A
 * {@link TrainingListener} hears each entry as it is known.
 */
public class AttentionClassifierSummary extends AttentionClassificationSummary {

    private static final long serialVersionUID = 1L;

    private final double[] objectiveHistory;

    AttentionClassifierSummary(Dataset<Row> predictions, String predictionCol, String labelCol, String weightCol,
                               double[] objectiveHistory) {
        super(predictions, predictionCol, labelCol, weightCol);
        this.objectiveHistory = objectiveHistory.clone();
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
        return objectiveHistory.length - 1;
    }

    @Override
    public String toString() {
        return "AttentionClassifierSummary: totalIterations=" + totalIterations() + ", objectiveHistory="
            + Arrays.toString(objectiveHistory);
    }
}
