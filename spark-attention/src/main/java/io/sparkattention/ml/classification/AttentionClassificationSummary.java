package io.sparkattention.ml.classification;

import org.apache.spark.mllib.evaluation.MulticlassMetrics;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import scala.Tuple3;

import java.io.Serializable;
import java.util.function.DoubleUnaryOperator;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.isnan;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.raise_error;
import static org.apache.spark.sql.functions.when;

/**
 * How an {@link AttentionClassificationModel} classifies a labelled set — what MLlib's
 * {@code ClassificationSummary} (the multiclass part of {@code LogisticRegressionSummary}) gives:
 * the predictions, accuracy, the labels, and per-label and weighted precision, recall
 * (true-positive rate), false-positive rate and F-measure. The figures are MLlib's own
 * {@code MulticlassMetrics} over (prediction, label, weight), so they equal
 * {@code MulticlassClassificationEvaluator}'s on the same predictions; rows weigh their
 * {@code weightCol} value (1 without one). Computed on first use, one Spark pass, then kept.
 *
 * <p>{@link AttentionClassificationModel#evaluate} returns one for any labelled set;
 * {@link AttentionClassificationModel#summary()} returns the training set's, an
 * {@link AttentionClassifierSummary} that adds the objective history.
 */
public class AttentionClassificationSummary implements Serializable {

    private static final long serialVersionUID = 1L;

    private final transient Dataset<Row> predictions;
    private final String predictionCol;
    private final String labelCol;
    private final String weightCol;
    private transient MulticlassMetrics metrics;

    AttentionClassificationSummary(Dataset<Row> predictions, String predictionCol, String labelCol, String weightCol) {
        this.predictions = predictions;
        this.predictionCol = predictionCol;
        this.labelCol = labelCol;
        this.weightCol = weightCol;
    }

    /**
     * The model's output on the set: every input column plus rawPrediction, probability and prediction.
     *
     * @return the predictions (computed lazily by Spark)
     */
    public Dataset<Row> predictions() {
        return predictions;
    }

    /** @return the column of {@link #predictions()} holding the predicted class */
    public String predictionCol() {
        return predictionCol;
    }

    /** @return the column of {@link #predictions()} holding the true class */
    public String labelCol() {
        return labelCol;
    }

    /** @return the row weight column, or empty when every row weighs 1 */
    public String weightCol() {
        return weightCol;
    }

    /** MLlib's metrics over (prediction, label, weight), computed once. */
    private synchronized MulticlassMetrics metrics() {
        if (metrics == null) {
            Column label = col(labelCol).cast(DataTypes.DoubleType);
            Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast(DataTypes.DoubleType);
            Column checkedLabel = when(label.isNull().or(isnan(label)), raise_error(
                lit("column " + labelCol + " has a null or NaN label; the summary needs a class for every row")))
                .otherwise(label);
            Column checkedWeight = when(weight.isNull().or(isnan(weight)).or(weight.lt(0)), raise_error(
                lit("column " + weightCol + " has a null, NaN or negative weight; expected a weight >= 0")))
                .otherwise(weight);
            metrics = new MulticlassMetrics(predictions
                .select(col(predictionCol).cast(DataTypes.DoubleType), checkedLabel, checkedWeight)
                .toJavaRDD()
                .map(r -> new Tuple3<>(r.getDouble(0), r.getDouble(1), r.getDouble(2)))
                .rdd());
        }
        return metrics;
    }

    private double[] byLabel(DoubleUnaryOperator metric) {
        double[] labels = labels();
        double[] out = new double[labels.length];
        for (int i = 0; i < labels.length; i++) {
            out[i] = metric.applyAsDouble(labels[i]);
        }
        return out;
    }

    /**
     * The classes seen as a label or a prediction, in ascending order; the per-label figures follow it.
     *
     * @return the labels
     */
    public double[] labels() {
        return metrics().labels();
    }

    /**
     * The (weighted) fraction of rows classified correctly.
     *
     * @return the accuracy
     */
    public double accuracy() {
        return metrics().accuracy();
    }

    /** @return each label's precision, in {@link #labels()} order */
    public double[] precisionByLabel() {
        return byLabel(metrics()::precision);
    }

    /** @return each label's recall, in {@link #labels()} order */
    public double[] recallByLabel() {
        return byLabel(metrics()::recall);
    }

    /** @return each label's true-positive rate (its recall), in {@link #labels()} order */
    public double[] truePositiveRateByLabel() {
        return recallByLabel();
    }

    /** @return each label's false-positive rate, in {@link #labels()} order */
    public double[] falsePositiveRateByLabel() {
        return byLabel(metrics()::falsePositiveRate);
    }

    /**
     * @param beta the weight of recall against precision
     * @return each label's F-measure, in {@link #labels()} order
     */
    public double[] fMeasureByLabel(double beta) {
        return byLabel(label -> metrics().fMeasure(label, beta));
    }

    /** @return each label's F1 measure, in {@link #labels()} order */
    public double[] fMeasureByLabel() {
        return fMeasureByLabel(1.0);
    }

    /** @return the precision averaged over labels, weighted by each label's (weighted) row count */
    public double weightedPrecision() {
        return metrics().weightedPrecision();
    }

    /** @return the recall averaged over labels, weighted by each label's (weighted) row count */
    public double weightedRecall() {
        return metrics().weightedRecall();
    }

    /** @return the true-positive rate averaged over labels, weighted by each label's (weighted) row count */
    public double weightedTruePositiveRate() {
        return weightedRecall();
    }

    /** @return the false-positive rate averaged over labels, weighted by each label's (weighted) row count */
    public double weightedFalsePositiveRate() {
        return metrics().weightedFalsePositiveRate();
    }

    /**
     * @param beta the weight of recall against precision
     * @return the F-measure averaged over labels, weighted by each label's (weighted) row count
     */
    public double weightedFMeasure(double beta) {
        return metrics().weightedFMeasure(beta);
    }

    /** @return the F1 measure averaged over labels, weighted by each label's (weighted) row count */
    public double weightedFMeasure() {
        return weightedFMeasure(1.0);
    }
}
