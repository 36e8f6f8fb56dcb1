package io.sparkattention.exec;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.classification.BertClassifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An executor JVM killed (SIGKILL) during a step's job of {@code BertClassifier.fit} on a
 * two-executor cluster, dropout and mini-batch sampling on, every layer trainable: fit completes,
 * and the objective history and every fine-tuned tensor equal the fault-free run's bit for bit.
 * The rows (ragged token ids, three classes) are generated on the executors from row ids, so a
 * recomputed partition is the same data; they are laid out in {@link #PARTITIONS} partitions, so
 * each of the four leaf tasks the cluster's two slots give folds two.
 */
class BertClassifierExecutorLossIT {

    private static final int ROWS = 48;
    private static final int MAX_ITER = 6;
    /** The step during whose job an executor dies: not the first, so earlier steps' state must carry over. */
    private static final int KILL_STEP = 3;
    /** Jobs {@code fit} runs before step 0's: decoding and validating the rows, then laying them out. */
    private static final int JOBS_BEFORE_FIRST_STEP = 2;
    private static final String STEP_JOB = "StepJob.java";
    private static final int PARTITIONS = 8;

    private final SparkSession spark = ClusterTestSession.get();

    /** A fit's outcome: every exported tensor and the objective history. */
    private record Fit(Map<String, float[]> tensors, double[] history) {
    }

    @BeforeEach
    void executors() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
    }

    @Test
    @DisplayName("an executor killed during a step's job, dropout and sampling on: the fault-free model and history, "
        + "bit for bit")
    void killedExecutor() {
        Fit expected = fit();
        assertTrue(expected.history()[MAX_ITER] < expected.history()[0], "training lowers the loss");
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        Fit got;
        try {
            killer.armAtJob(JOBS_BEFORE_FIRST_STEP + KILL_STEP);
            got = fit();
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
        assertNotNull(killer.killedExecutor(), "an executor was killed during the fit");
        assertTrue(killer.targetJobName().contains(STEP_JOB), "the kill hit a step's job, not "
            + killer.targetJobName());
        assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1, "tasks failed or stages were re-run");
        assertEquals(expected.history().length, got.history().length);
        for (int i = 0; i < expected.history().length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected.history()[i]), Double.doubleToRawLongBits(got.history()[i]),
                "objective history " + i);
        }
        for (Map.Entry<String, float[]> e : expected.tensors().entrySet()) {
            float[] g = got.tensors().get(e.getKey());
            for (int i = 0; i < g.length; i++) {
                assertEquals(Float.floatToRawIntBits(e.getValue()[i]), Float.floatToRawIntBits(g[i]),
                    e.getKey() + "[" + i + "]");
            }
        }
    }

    private Fit fit() {
        Dataset<Row> rows = spark.range(0, ROWS, 1, 3)
            .withColumn("label", col("id").mod(3).cast("double"))
            .withColumn("input_ids",
                expr("transform(sequence(0, 2 + cast(id % 17 as int)), i -> cast(pmod(id * 31 + i * 17 + id % 3, 45) "
                    + "+ 3 as int))"));
        BertClassificationModel model = new BertClassifier().setEncoder(new BertEncoderModel(encoder()))
            .setStepSize(3e-3).setMaxIter(MAX_ITER).setWarmupSteps(1).setWeightDecay(0.01).setDropout(0.1)
            .setMiniBatchFraction(0.7).setSeed(23).setNumPartitions(PARTITIONS).fit(rows);
        Map<String, float[]> tensors = new LinkedHashMap<>(model.encoder().weights().tensors());
        tensors.put("classifier.weight", model.classifierWeight());
        tensors.put("classifier.bias", model.classifierBias());
        return new Fit(tensors, model.summary().objectiveHistory());
    }

    /** A small random encoder: 2 layers, E = 16, 2 heads, 50 ids, 64 positions. */
    private static BertEncoder encoder() {
        BertConfig config = new BertConfig(2, 16, 2, 32, 64, 50, 2, 1e-12f);
        SplittableRandom random = new SplittableRandom(7);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(config).entrySet()) {
            long size = 1;
            for (long s : e.getValue()) {
                size *= s;
            }
            float[] t = new float[(int) size];
            boolean norm = e.getKey().contains("LayerNorm.weight");
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) ((norm ? 1 : 0) + random.nextGaussian() * (norm ? 0.05 : 0.2));
            }
            tensors.put(e.getKey(), t);
        }
        return new BertEncoder(new BertWeights(config, tensors));
    }
}
