package io.sparkattention.exec;

import io.sparkattention.gpt.GptWeights;
import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.ml.lm.GptLanguageModeler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.apache.spark.sql.functions.expr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An executor JVM killed (SIGKILL) during a step's job of {@code GptLanguageModeler.fit} on a
 * two-executor cluster — a new byte-level model from packed texts, dropout on, sampled steps, a
 * held-out fraction evaluated every other step: fit completes, and the objective history, the
 * validation losses and every trained tensor equal the fault-free run's bit for bit. The texts are
 * generated on the executors from row ids, so a recomputed partition is the same data.
 */
class LanguageModelTrainingExecutorLossIT {

    private static final int ROWS = 60;
    private static final int MAX_ITER = 6;
    /** The step during whose job an executor dies: not the first, so earlier steps' state must carry over. */
    private static final int KILL_STEP = 3;
    private static final String STEP_JOB = "StepJob.java";

    private final SparkSession spark = ClusterTestSession.get();

    /** A fit's outcome: every trained tensor, the objective history and the validation losses. */
    private record Fit(Map<String, float[]> tensors, double[] history, double[] validation) {
    }

    @BeforeEach
    void executors() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
    }

    @Test
    @DisplayName("an executor killed during a step's job, dropout and sampling on: the fault-free model, history and "
        + "validation losses, bit for bit")
    void killedExecutor() {
        Fit expected = fit(null);
        assertTrue(expected.history()[MAX_ITER] < expected.history()[0], "training lowers the loss");
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        Fit got;
        try {
            got = fit(killer);
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
        assertNotNull(killer.killedExecutor(), "an executor was killed during the fit");
        assertTrue(killer.targetJobName().contains(STEP_JOB), "the kill hit a step's job, not "
            + killer.targetJobName());
        assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1, "tasks failed or stages were re-run");
        assertBits(expected.history(), got.history(), "objective history");
        assertBits(expected.validation(), got.validation(), "validation loss");
        for (Map.Entry<String, float[]> e : expected.tensors().entrySet()) {
            float[] g = got.tensors().get(e.getKey());
            for (int i = 0; i < g.length; i++) {
                assertEquals(Float.floatToRawIntBits(e.getValue()[i]), Float.floatToRawIntBits(g[i]),
                    e.getKey() + "[" + i + "]");
            }
        }
    }

    private static void assertBits(double[] expected, double[] got, String what) {
        assertEquals(expected.length, got.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(got[i]), what + " " + i);
        }
    }

    /**
     * A fit; with a killer, armed when the listener hears step {@code KILL_STEP − 1}'s loss: the
     * next job is that step's validation job, the one after it step {@link #KILL_STEP}'s.
     */
    private Fit fit(ExecutorKiller killer) {
        Dataset<Row> rows = spark.range(0, ROWS, 1, 3).select(
            expr("concat('row ', id, ': ', repeat(substr('the cat sat on a mat and ran', 1 + cast(id % 7 as int)), "
                + "1 + cast(id % 3 as int)))").as("text"));
        GptLanguageModeler modeler = new GptLanguageModeler().setNLayer(2).setNEmbd(16).setNHead(2).setBlockSize(24)
            .setTokenizer("bytes").setValidationFraction(0.2).setEvalEvery(2).setStepSize(1e-2).setWarmupSteps(1)
            .setWeightDecay(0.01).setDropout(0.1).setMaxIter(MAX_ITER).setRowsPerStep(12).setSeed(23)
            .setNumPartitions(8);
        if (killer != null) {
            modeler.setTrainingListener((i, loss) -> {
                if (i == KILL_STEP - 1) {
                    killer.armAtJob(1);
                }
            });
        }
        GptLanguageModel model = modeler.fit(rows);
        return new Fit(model.decoder().weights().stateDict(), model.summary().objectiveHistory(),
            model.summary().validationHistory());
    }
}
