package io.sparkattention.ml.classification;

import io.sparkattention.ml.StageSchema;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.util.Arrays;

/**
 * A classification model's predictions on a labelled set, as its summaries read them (the
 * training summary and {@code evaluate}'s alike, for both classifier families): the set
 * transformed by the model (or by a copy with a prediction column, when the model's own is empty,
 * as MLlib's summaries do), the prediction and label columns, and the weight column when the set
 * has it.
 */
final class LabelledPredictions {

    /** Makes a summary from a labelled set's predictions. */
    @FunctionalInterface
    interface Summary<S> {
        S of(Dataset<Row> predictions, String predictionCol, String labelCol, String weightCol);
    }

    private LabelledPredictions() {
    }

    /**
     * The summary of {@code model}'s predictions on {@code dataset}, whose rows weigh their
     * {@code weightCol} value when the set has that column, else 1.
     *
     * @throws IllegalArgumentException when the set has no label column
     */
    static <M extends ProbabilisticClassificationModel<?, M>, S> S summarize(M model, Dataset<?> dataset,
                                                                           String weightCol, Summary<S> summary) {
        StageSchema.field(dataset.schema(), model.getLabelCol(), "labelCol");
        M predicting = model.getPredictionCol().isEmpty()
            ? model.copy(new ParamMap()).setPredictionCol("prediction_" + model.uid()) : model;
        String weight = !weightCol.isEmpty() && Arrays.asList(dataset.columns()).contains(weightCol) ? weightCol : "";
        return summary.of(predicting.transform(dataset), predicting.getPredictionCol(), model.getLabelCol(), weight);
    }
}
