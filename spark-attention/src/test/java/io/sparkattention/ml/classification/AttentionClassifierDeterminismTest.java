package io.sparkattention.ml.classification;

import io.sparkattention.ml.training.Trainer;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same seed, data and partitioning give a bit-identical model; other partitionings agree
 * within float32 reordering; mini-batches and early stopping follow their params.
 */
class AttentionClassifierDeterminismTest {

    private final SparkSession spark = SparkTestSession.get();

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(6).setStepSize(0.01).setSeed(7);
    }

    @Test
    @DisplayName("the same seed, data and partitioning give bit-identical parameters and history")
    void bitIdentical() {
        Dataset<Row> df = ClassifierData.random(spark, 40, 8, 3, 11, 4).cache();
        AttentionClassificationModel a = stage().fit(df);
        AttentionClassificationModel b = stage().fit(df);
        assertArrayEquals(a.parameters(), b.parameters());
        assertArrayEquals(a.summary().objectiveHistory(), b.summary().objectiveHistory());
        df.unpersist();
    }

    @Test
    @DisplayName("one and four partitions agree within 1e-5 (float32 reordering only)")
    void partitionsAgree() {
        AttentionClassificationModel one = stage().fit(ClassifierData.random(spark, 40, 8, 3, 11, 1));
        AttentionClassificationModel four = stage().fit(ClassifierData.random(spark, 40, 8, 3, 11, 4));
        float[] p = one.parameters();
        float[] q = four.parameters();
        double diff = 0, norm = 0;
        for (int i = 0; i < p.length; i++) {
            diff += (p[i] - q[i]) * (double) (p[i] - q[i]);
            norm += p[i] * (double) p[i];
        }
        assertTrue(Math.sqrt(diff / norm) <= 1e-5, "relative difference " + Math.sqrt(diff / norm));
        double[] h1 = one.summary().objectiveHistory();
        double[] h4 = four.summary().objectiveHistory();
        for (int i = 0; i < h1.length; i++) {
            assertEquals(h1[i], h4[i], 1e-5 * Math.abs(h1[i]), "loss " + i);
        }
    }

    @Test
    @DisplayName("training lowers the loss, and the history has maxIter + 1 entries")
    void historyShape() {
        AttentionClassificationModel m = stage().setMaxIter(20).setStepSize(0.05)
            .fit(ClassifierData.random(spark, 40, 8, 3, 11, 2));
        double[] h = m.summary().objectiveHistory();
        assertEquals(21, h.length);
        assertEquals(20, m.summary().totalIterations());
        assertTrue(h[20] < h[0], "loss " + h[0] + " -> " + h[20]);
    }

    @Test
    @DisplayName("mini-batches are drawn from (seed, step): the same seed repeats them, another seed differs")
    void miniBatchesFollowTheSeed() {
        Dataset<Row> df = ClassifierData.random(spark, 40, 8, 3, 11, 4).cache();
        AttentionClassificationModel a = stage().setMiniBatchFraction(0.5).fit(df);
        AttentionClassificationModel b = stage().setMiniBatchFraction(0.5).fit(df);
        AttentionClassificationModel c = stage().setMiniBatchFraction(0.5).setSeed(8).fit(df);
        AttentionClassificationModel full = stage().fit(df);
        assertArrayEquals(a.parameters(), b.parameters());
        assertFalse(Arrays.equals(a.parameters(), c.parameters()));
        assertNotEquals(full.summary().objectiveHistory()[0], a.summary().objectiveHistory()[0],
            "the first step's loss is over a half sample, not every row");
        df.unpersist();
    }

    @Test
    @DisplayName("tol stops training when the loss improves by less than tol over 10 steps, with history = steps "
        + "taken + 1")
    void tolStopsEarly() {
        AttentionClassificationModel m = stage().setMaxIter(50).setStepSize(1e-6).setTol(1e-3)
            .fit(ClassifierData.random(spark, 20, 8, 3, 11, 2));
        int steps = m.summary().totalIterations();
        assertTrue(steps >= Trainer.TOL_WINDOW && steps < 50, "stopped after " + steps + " steps");
        assertEquals(steps + 1, m.summary().objectiveHistory().length);
    }

    @Test
    @DisplayName("tol does not stop Adam's flat start: a weak signal whose loss stays near ln 3 for its first steps "
        + "trains on (a rule on two neighbouring steps stopped it there)")
    void tolPassesTheFlatStart() {
        double tol = 1e-3;
        double ln3 = Math.log(3);
        AttentionClassificationModel m = stage().setMaxIter(80).setStepSize(0.01).setTol(tol).setSeed(3)
            .fit(ClassifierData.random(spark, 90, 8, 3, 0.03f, 0.01f, 7, 2));
        double[] h = m.summary().objectiveHistory();
        int neighbourStop = 1;
        while (neighbourStop < h.length
            && Math.abs(h[neighbourStop] - h[neighbourStop - 1]) / h[neighbourStop - 1] >= tol) {
            neighbourStop++;
        }
        assertTrue(neighbourStop <= Trainer.TOL_WINDOW && h[neighbourStop] > 0.95 * ln3,
            "the case has a flat start: " + Arrays.toString(h));
        assertEquals(80, m.summary().totalIterations());
        assertTrue(h[h.length - 1] < 0.5 * ln3, "trained past the flat start: " + Arrays.toString(h));
    }
}
