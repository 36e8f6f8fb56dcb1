package io.sparkattention.ml.classification;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.rand;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The training summary and {@code evaluate} give MLlib's multiclass figures: each equals
 * {@link MulticlassClassificationEvaluator}'s on the same predictions (weighted when the set has
 * the weight column).
 */
class AttentionClassifierSummaryTest {

    private static final double EXACT = 1e-12;

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    /** A weighted 3-class set that a few steps learn only partly, so every figure is neither 0 nor 1. */
    private Dataset<Row> weighted(long seed) {
        return ClassifierData.random(spark, 60, 8, 3, 0.4f, 1f, seed, 2).withColumn("w", rand(seed).plus(0.5));
    }

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(8).setStepSize(0.02).setSeed(4).setWeightCol("w");
    }

    @Test
    @DisplayName("summary(): predictions, labels, accuracy, per-label and weighted figures equal the evaluator's on "
        + "its predictions; history and iterations as before")
    void trainingSummary() {
        Dataset<Row> train = weighted(31);
        AttentionClassificationModel model = stage().fit(train);
        AttentionClassifierSummary summary = model.summary();

        assertEquals(8, summary.totalIterations());
        assertEquals(9, summary.objectiveHistory().length);
        assertEquals(train.count(), summary.predictions().count());
        assertTrue(Arrays.asList(summary.predictions().columns()).containsAll(
            Arrays.asList("features", "label", "w", "rawPrediction", "probability", "prediction")));
        assertEquals("w", summary.weightCol());
        assertMatchesEvaluator(summary, "w");
        assertTrue(summary.accuracy() > 0 && summary.accuracy() < 1, "accuracy " + summary.accuracy());
    }

    @Test
    @DisplayName("evaluate(df): the same figures on another set, without history; loaded models evaluate too")
    void evaluateOtherSets() throws IOException {
        AttentionClassificationModel model = stage().fit(weighted(32));
        Dataset<Row> test = weighted(33);
        AttentionClassificationSummary evaluated = model.evaluate(test);
        assertFalse(evaluated instanceof AttentionClassifierSummary);
        assertMatchesEvaluator(evaluated, "w");

        AttentionClassificationSummary unweighted = model.evaluate(test.drop("w"));
        assertEquals("", unweighted.weightCol());
        assertMatchesEvaluator(unweighted, null);

        String saved = dir.resolve("model").toString();
        model.write().save(saved);
        AttentionClassificationModel loaded = AttentionClassificationModel.load(saved);
        assertFalse(loaded.hasSummary());
        assertThrows(IllegalStateException.class, loaded::summary);
        assertEquals(evaluated.accuracy(), loaded.evaluate(test).accuracy(), EXACT);
    }

    @Test
    @DisplayName("a model without a prediction column still evaluates (as MLlib's summaries do)")
    void emptyPredictionColumn() {
        AttentionClassificationModel model = stage().fit(weighted(34)).setPredictionCol("");
        Dataset<Row> test = weighted(35);
        AttentionClassificationSummary evaluated = model.evaluate(test);
        assertEquals(model.setPredictionCol("prediction").evaluate(test).accuracy(), evaluated.accuracy(), EXACT);
        assertThrows(IllegalArgumentException.class, () -> model.evaluate(test.drop("label")));
    }

    private static void assertMatchesEvaluator(AttentionClassificationSummary s, String weightCol) {
        Dataset<Row> predictions = s.predictions().cache();
        MulticlassClassificationEvaluator evaluator = new MulticlassClassificationEvaluator()
            .setPredictionCol(s.predictionCol()).setLabelCol(s.labelCol());
        if (weightCol != null) {
            evaluator.setWeightCol(weightCol);
        }
        assertEquals(evaluator.setMetricName("accuracy").evaluate(predictions), s.accuracy(), EXACT);
        assertEquals(evaluator.setMetricName("weightedPrecision").evaluate(predictions), s.weightedPrecision(), EXACT);
        assertEquals(evaluator.setMetricName("weightedRecall").evaluate(predictions), s.weightedRecall(), EXACT);
        assertEquals(evaluator.setMetricName("weightedTruePositiveRate").evaluate(predictions),
            s.weightedTruePositiveRate(), EXACT);
        assertEquals(evaluator.setMetricName("weightedFalsePositiveRate").evaluate(predictions),
            s.weightedFalsePositiveRate(), EXACT);
        assertEquals(evaluator.setMetricName("f1").evaluate(predictions), s.weightedFMeasure(), EXACT);
        assertEquals(evaluator.setMetricName("weightedFMeasure").setBeta(0.5).evaluate(predictions),
            s.weightedFMeasure(0.5), EXACT);

        double[] labels = s.labels();
        assertArrayEquals(new double[] {0, 1, 2}, labels);
        assertByLabel(evaluator.setMetricName("precisionByLabel"), predictions, labels, s.precisionByLabel());
        assertByLabel(evaluator.setMetricName("recallByLabel"), predictions, labels, s.recallByLabel());
        assertByLabel(evaluator.setMetricName("truePositiveRateByLabel"), predictions, labels,
            s.truePositiveRateByLabel());
        assertByLabel(evaluator.setMetricName("falsePositiveRateByLabel"), predictions, labels,
            s.falsePositiveRateByLabel());
        assertByLabel(evaluator.setMetricName("fMeasureByLabel").setBeta(1.0), predictions, labels,
            s.fMeasureByLabel());
        assertByLabel(evaluator.setMetricName("fMeasureByLabel").setBeta(2.0), predictions, labels,
            s.fMeasureByLabel(2.0));
        predictions.unpersist();
    }

    private static void assertByLabel(MulticlassClassificationEvaluator evaluator, Dataset<Row> predictions,
                                      double[] labels, double[] actual) {
        DoubleUnaryOperator expected = label -> evaluator.setMetricLabel(label).evaluate(predictions);
        assertEquals(labels.length, actual.length);
        for (int i = 0; i < labels.length; i++) {
            assertEquals(expected.applyAsDouble(labels[i]), actual[i], EXACT,
                evaluator.getMetricName() + " of label " + labels[i]);
        }
    }
}
