package io.sparkattention.ml.classification;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What {@link BertClassifier#fit} did: the training set's figures (accuracy, per-label and
 * weighted precision, recall and F-measure) and the objective history, as
 * {@link AttentionClassifierSummary} gives them. {@code objectiveHistory()[i]}, for i below
 * {@code totalIterations()}, is step i's loss Σw·CE/Σw over its sample with dropout on, before
 * the step; the last entry is the loss over every row at the final weights, without dropout.
 */
public final class BertClassifierSummary extends AttentionClassifierSummary {

    private static final long serialVersionUID = 1L;

    BertClassifierSummary(Dataset<Row> predictions, String predictionCol, String labelCol, String weightCol,
                          double[] objectiveHistory) {
        super(predictions, predictionCol, labelCol, weightCol, objectiveHistory);
    }

    @Override
    public String toString() {
        return "BertClassifierSummary: totalIterations=" + totalIterations() + ", objectiveHistory="
            + java.util.Arrays.toString(objectiveHistory());
    }
}
