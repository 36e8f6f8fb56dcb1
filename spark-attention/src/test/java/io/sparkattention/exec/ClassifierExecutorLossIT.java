package io.sparkattention.exec;

import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults during {@code AttentionClassifier.fit} on a two-executor cluster: an executor JVM killed
 * with SIGKILL during one of the step jobs (not the first), alone or followed by a failing
 * recomputation of the rows it held, and a task that throws once. In every case {@code fit}
 * completes and the model's weights and objective history equal the fault-free run's bit for bit.
 * The recovery time (fit with the fault minus a warm fault-free fit) is printed; nothing here
 * asserts a duration.
 *
 * <p>The training set is generated on the executors from row ids (ragged lengths, three classes,
 * row weights, eight partitions: on the cluster's two task slots, four leaf tasks of two partitions
 * each per step), so a recomputed partition is the same data. With
 * {@code miniBatchFraction} below 1 every step also samples its rows, which a re-run task must
 * draw again identically.
 */
class ClassifierExecutorLossIT {

    private static final int ROWS = 64;
    /** Twice the leaves two slots give ({@code FixedOrderAggregate.leaves(2)} = 4): each leaf folds two. */
    private static final int PARTITIONS = 8;
    private static final int MIN_LENGTH = 3;
    private static final int MAX_LENGTH = 24;
    private static final int EMBED = 16;
    private static final int HEADS = 2;
    private static final int CLASSES = 3;
    private static final int MAX_ITER = 6;
    private static final long DATA_SEED = 29;
    private static final long FIT_SEED = 17;
    private static final double MINI_BATCH = 0.6;
    /** The step during whose job an executor dies: not the first, so earlier steps' state must carry over. */
    private static final int KILL_STEP = 3;
    /** Jobs {@code fit} runs before step 0's: one pass that decodes, caches and validates the rows. */
    private static final int JOBS_BEFORE_FIRST_STEP = 1;
    /** The call site of a step's job, as Spark names its stage. */
    private static final String STEP_JOB = "StepJob.java";

    /** Fault-free fits per miniBatchFraction. */
    private static final Map<Double, Fit> BASELINE = new HashMap<>();

    private final SparkSession spark = ClusterTestSession.get();

    @TempDir
    Path markers;

    /** A fit's outcome: the flat weights, the objective history and the wall time. */
    private record Fit(float[] weights, double[] history, double seconds) {
    }

    @BeforeEach
    void executors() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
    }

    @ParameterizedTest(name = "miniBatchFraction {0}")
    @ValueSource(doubles = {1.0, MINI_BATCH})
    @DisplayName("an executor JVM killed (SIGKILL) during a step's job: fit completes with the fault-free model, bit "
        + "for bit")
    void killedExecutor(double fraction) {
        Fit expected = baseline(fraction);
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        try {
            killer.armAtJob(JOBS_BEFORE_FIRST_STEP + KILL_STEP);
            Fit got = fit(fraction, null);
            assertKilledDuringStep(killer);
            assertSameModel(expected, got);
            report("executor loss", fraction, killer, got, expected);
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
    }

    @Test
    @DisplayName("an executor killed during a step, and the recomputation of its lost rows throwing once: the "
        + "fault-free model, bit for bit")
    void killedExecutorThenFailedRecomputation() {
        Fit expected = baseline(MINI_BATCH);
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        try {
            killer.armAtJob(JOBS_BEFORE_FIRST_STEP + KILL_STEP);
            Fit got = fit(MINI_BATCH, new RowFault(RowFault.Mode.FIRST_RECOMPUTATION, markers));
            assertKilledDuringStep(killer);
            assertTrue(RowFault.fired(markers), "a lost row was generated again, and that generation threw");
            assertTrue(killer.failedTasks.get() >= 2, killer.failedTasks + " failed tasks: the killed one and the "
                + "failed recomputation");
            assertSameModel(expected, got);
            report("executor loss + failed recomputation", MINI_BATCH, killer, got, expected);
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
    }

    @Test
    @DisplayName("a task that throws once while the training rows are first generated: retried, the fault-free "
        + "model, bit for bit")
    void taskThatThrowsOnce() {
        Fit expected = baseline(MINI_BATCH);
        ExecutorKiller counter = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(counter);
        try {
            Fit got = fit(MINI_BATCH, new RowFault(RowFault.Mode.FIRST_CALL, markers));
            assertTrue(RowFault.fired(markers), "the fault fired");
            assertTrue(counter.failedTasks.get() >= 1, counter.failedTasks + " failed tasks");
            assertSameModel(expected, got);
            System.out.printf("[task retry] miniBatchFraction %.2f: fit %.2f s, fault-free %.2f s, recovery cost "
                    + "%.2f s; %d failed tasks%n", MINI_BATCH, got.seconds(), expected.seconds(),
                got.seconds() - expected.seconds(), counter.failedTasks.get());
        } finally {
            spark.sparkContext().removeSparkListener(counter);
        }
    }

    /**
     * The fault-free fit, checked against a second fault-free fit (same bits), whose time is the
     * one a faulty fit is compared with (both on warm executors).
     */
    private Fit baseline(double fraction) {
        return BASELINE.computeIfAbsent(fraction, f -> {
            Fit first = fit(f, null);
            assertEquals(MAX_ITER + 1, first.history().length, "maxIter + 1 losses");
            assertTrue(first.history()[MAX_ITER] < first.history()[0], "training lowers the loss: "
                + first.history()[0] + " -> " + first.history()[MAX_ITER]);
            Fit second = fit(f, null);
            assertSameModel(first, second);
            return second;
        });
    }

    private Fit fit(double fraction, RowFault fault) {
        AttentionClassifier classifier = new AttentionClassifier()
            .setFeaturesCol("features")
            .setLabelCol("label")
            .setWeightCol("weight")
            .setNumHeads(HEADS)
            .setSolver("adam")
            .setStepSize(0.05)
            .setMaxIter(MAX_ITER)
            .setMiniBatchFraction(fraction)
            .setSeed(FIT_SEED);
        Dataset<Row> data = trainingSet(fault);
        long t0 = System.nanoTime();
        AttentionClassificationModel model = classifier.fit(data);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Fit(model.parameters(), model.summary().objectiveHistory(), seconds);
    }

    /** ROWS rows of MIN_LENGTH…MAX_LENGTH tokens, class id mod CLASSES, weight 0.5…1.25, generated on the executors. */
    private Dataset<Row> trainingSet(RowFault fault) {
        return spark.range(0, ROWS, 1, PARTITIONS)
            .withColumn("label", col("id").mod(CLASSES).cast("double"))
            .withColumn("weight", lit(0.5).plus(col("id").mod(4).multiply(0.25)))
            .withColumn("features", GeneratedSequence.column(col("id"), col("label"), DATA_SEED, MIN_LENGTH,
                MAX_LENGTH, EMBED, fault));
    }

    private static void assertKilledDuringStep(ExecutorKiller killer) {
        assertNotNull(killer.killedExecutor(), "an executor was killed during the fit");
        assertTrue(killer.targetJobName().contains(STEP_JOB), "the kill hit a step's job, not "
            + killer.targetJobName());
        assertTrue(killer.removedExecutors.get() >= 1, "the scheduler saw the executor go");
        assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1, "tasks failed or stages were re-run: "
            + killer.failedTasks + " failed tasks, " + killer.stageRetries + " stage retries");
    }

    /** Equal weights and objective history, compared as raw bits. */
    private static void assertSameModel(Fit expected, Fit got) {
        assertEquals(expected.weights().length, got.weights().length, "parameter count");
        for (int i = 0; i < expected.weights().length; i++) {
            assertEquals(Float.floatToRawIntBits(expected.weights()[i]), Float.floatToRawIntBits(got.weights()[i]),
                "weight " + i + ": " + expected.weights()[i] + " vs " + got.weights()[i]);
        }
        assertEquals(expected.history().length, got.history().length, "objective history length");
        for (int i = 0; i < expected.history().length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected.history()[i]),
                Double.doubleToRawLongBits(got.history()[i]),
                "objective history " + i + ": " + expected.history()[i] + " vs " + got.history()[i]);
        }
    }

    private static void report(String what, double fraction, ExecutorKiller killer, Fit got, Fit expected) {
        long kill = killer.killedAtNanos();
        System.out.printf("[%s] miniBatchFraction %.2f: killed executor %s (pid %d) at the start of '%s'; executor "
                + "loss seen after %.2f s, last failed task %.2f s after the kill; fit %.2f s, fault-free %.2f s, "
                + "recovery cost %.2f s; %d failed tasks, %d stage retries%n", what, fraction, killer.killedExecutor(),
            killer.killedPid(), killer.targetJobName(), (killer.removedAtNanos() - kill) / 1e9,
            (killer.lastFailureAtNanos() - kill) / 1e9, got.seconds(), expected.seconds(),
            got.seconds() - expected.seconds(), killer.failedTasks.get(), killer.stageRetries.get());
    }
}
