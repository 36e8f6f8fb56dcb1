package io.sparkattention.ml.classification;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TrainingListener}: the objective history as it is known, in order, without changing the fit. */
class TrainingListenerTest {

    private final SparkSession spark = SparkTestSession.get();
    private Dataset<Row> data;

    @BeforeEach
    void cacheData() {
        data = ClassifierData.random(spark, 40, 8, 3, 11, 4).cache();
    }

    @AfterEach
    void dropData() {
        data.unpersist();
    }

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(4).setStepSize(0.05).setSeed(7);
    }

    /** The losses a listener hears during one fit, with the fitted model. */
    private static final class Heard {
        final List<Integer> iterations = new ArrayList<>();
        final List<Double> losses = new ArrayList<>();
        AttentionClassificationModel model;

        Heard fit(AttentionClassifier stage, Dataset<Row> df) {
            model = stage.setTrainingListener((i, loss) -> {
                iterations.add(i);
                losses.add(loss);
            }).fit(df);
            return this;
        }

        double[] losses() {
            return losses.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }

    @Test
    @DisplayName("full batch: the listener hears the objective history, entry for entry, iterations 0 … maxIter in order")
    void fullBatchIsTheHistory() {
        Heard heard = new Heard().fit(stage(), data);
        assertEquals(List.of(0, 1, 2, 3, 4), heard.iterations);
        assertArrayEquals(heard.model.summary().objectiveHistory(), heard.losses());
    }

    @Test
    @DisplayName("mini-batches: the listener hears each step's sample loss (the history), then the loss over every "
        + "row at the final weights")
    void miniBatchesReportTheHistory() {
        Heard heard = new Heard().fit(stage().setMiniBatchFraction(0.5), data);
        assertEquals(List.of(0, 1, 2, 3, 4), heard.iterations);
        assertArrayEquals(heard.model.summary().objectiveHistory(), heard.losses());
        double fullBatchStart = stage().setMaxIter(0).fit(data).summary().objectiveHistory()[0];
        assertTrue(fullBatchStart != heard.losses.get(0), "the first loss heard is the half sample's");
        double[] fullBatchAfter = stage().setMiniBatchFraction(0.5).setMaxIter(4).setTrainingListener(null).fit(data)
            .summary().objectiveHistory();
        assertEquals(fullBatchAfter[4], heard.losses.get(4), 0.0, "the last is over every row after the 4 steps");
    }

    @Test
    @DisplayName("a listener only observes: the same parameters and history with and without it")
    void listenerChangesNothing() {
        AttentionClassifier plain = stage().setMiniBatchFraction(0.5);
        AttentionClassificationModel without = plain.fit(data);
        AttentionClassificationModel with = new Heard().fit(stage().setMiniBatchFraction(0.5), data).model;
        assertArrayEquals(without.parameters(), with.parameters());
        assertArrayEquals(without.summary().objectiveHistory(), with.summary().objectiveHistory());
    }

    @Test
    @DisplayName("tol: the last loss heard is at the final weights, after totalIterations steps")
    void tolStopReportsTheFinalWeights() {
        Heard heard = new Heard().fit(stage().setMaxIter(50).setStepSize(1e-6).setTol(1e-3), data);
        int steps = heard.model.summary().totalIterations();
        assertTrue(steps < 50, "stopped after " + steps + " steps");
        assertEquals(steps + 1, heard.losses.size());
        assertArrayEquals(heard.model.summary().objectiveHistory(), heard.losses());
    }

    @Test
    @DisplayName("fit with a param map (a copy of the estimator) keeps the listener")
    void copiesKeepTheListener() {
        List<Double> losses = new ArrayList<>();
        AttentionClassifier stage = stage().setTrainingListener((i, loss) -> losses.add(loss));
        stage.fit(data, new ParamMap().put(stage.maxIter().w(2)));
        assertEquals(3, losses.size());
    }
}
