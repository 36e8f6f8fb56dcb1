package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RandomTensors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Faults during multi-stage attention jobs on a two-executor cluster: an executor JVM killed with
 * SIGKILL while the job runs, and tasks that throw once. In both cases the job completes and its
 * output equals the fault-free run's, row for row and bit for bit. The recovery time (run with
 * the fault minus run without) is printed; nothing here asserts a duration.
 *
 * <p>The workload is PyTorch-style multi-head attention (projections in the first stage, output
 * projection in the last) over rows generated on the executors from their ids, so a recomputed
 * input partition is the same data.
 */
class ExecutorLossIT {

    private static final int ROWS = 4;
    private static final int LENGTH = 4096;
    private static final int EMBED = 128;
    private static final int HEADS = 2;
    /** Fault-free outputs per strategy: id → output. */
    private static final Map<String, Map<Long, float[]>> BASELINE = new HashMap<>();
    private static final Map<String, Double> BASELINE_SECONDS = new HashMap<>();

    private final SparkSession spark = ClusterTestSession.get();

    @TempDir
    Path markers;

    @BeforeEach
    void settings() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
        spark.conf().set(ExecutionSettings.SEQUENCE_BLOCK_ROWS, "2048");
    }

    @AfterEach
    void reset() {
        spark.conf().unset(ExecutionSettings.SEQUENCE_BLOCK_ROWS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"head", "sequence"})
    @DisplayName("an executor JVM killed (SIGKILL) mid-job: the job completes with the fault-free output")
    void killedExecutor(String strategy) {
        Map<Long, float[]> expected = baseline(strategy);
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        try {
            killer.arm();
            long t0 = System.nanoTime();
            Map<Long, float[]> got = run(job(), strategy);
            long t1 = System.nanoTime();
            assertNotNull(killer.killedExecutor(), "the executor was killed during the job");
            assertTrue(killer.removedExecutors.get() >= 1, "the scheduler saw the executor go");
            assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1,
                "tasks failed or stages were re-run: " + killer.failedTasks + " failed tasks, "
                    + killer.stageRetries + " stage retries");
            assertSameRows(expected, got);
            double seconds = (t1 - t0) / 1e9;
            long kill = killer.killedAtNanos();
            System.out.printf("[executor loss] %s: killed executor %s (pid %d) %.2f s into the job; executor loss "
                    + "seen after %.2f s, last failed task %.2f s after the kill; job %.2f s, fault-free %.2f s, "
                    + "recovery cost %.2f s; %d failed tasks, %d stage retries%n", strategy,
                killer.killedExecutor(), killer.killedPid(), (kill - t0) / 1e9, (killer.removedAtNanos() - kill) / 1e9,
                (killer.lastFailureAtNanos() - kill) / 1e9, seconds, BASELINE_SECONDS.get(strategy),
                seconds - BASELINE_SECONDS.get(strategy), killer.failedTasks.get(), killer.stageRetries.get());
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"head", "sequence"})
    @DisplayName("a task that throws once in the first stage and one in the last: retried, same output")
    void tasksThatThrowOnce(String strategy) {
        Map<Long, float[]> expected = baseline(strategy);
        ExecutorKiller counter = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(counter);
        try {
            long t0 = System.nanoTime();
            Map<Long, float[]> got = run(new FaultyJob(job(), markers), strategy);
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(FaultyJob.fired(markers, "prepare") && FaultyJob.fired(markers, "finish"), "both faults fired");
            assertTrue(counter.failedTasks.get() >= 2, counter.failedTasks + " failed tasks");
            assertSameRows(expected, got);
            System.out.printf("[task retry] %s: job %.2f s, fault-free %.2f s, recovery cost %.2f s; %d failed tasks%n",
                strategy, seconds, BASELINE_SECONDS.get(strategy), seconds - BASELINE_SECONDS.get(strategy),
                counter.failedTasks.get());
        } finally {
            spark.sparkContext().removeSparkListener(counter);
        }
    }

    /** The fault-free output, and the time of a second (warm) fault-free run to compare the faulty run with. */
    private Map<Long, float[]> baseline(String strategy) {
        return BASELINE.computeIfAbsent(strategy, s -> {
            Map<Long, float[]> out = run(job(), s);
            long t0 = System.nanoTime();
            assertSameRows(out, run(job(), s));
            BASELINE_SECONDS.put(s, (System.nanoTime() - t0) / 1e9);
            return out;
        });
    }

    private static void assertSameRows(Map<Long, float[]> expected, Map<Long, float[]> got) {
        assertEquals(expected.keySet(), got.keySet());
        for (Map.Entry<Long, float[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), got.get(e.getKey()), "row " + e.getKey());
        }
    }

    /** The job's output per row id, collected. */
    private Map<Long, float[]> run(AttentionJob job, String strategy) {
        Dataset<Row> input = spark.range(0, ROWS, 1, 2)
            .withColumn("query", GeneratedMatrix.column(col("id"), 17, LENGTH, EMBED))
            .withColumn("key", col("query"))
            .withColumn("value", col("query"))
            .withColumn("key_length", lit(null).cast("int"))
            .withColumn("bias", lit(null).cast(LayerJob.FLAT));
        List<Row> rows = AttentionExecution.transform(input, job, Strategy.parse(strategy)).select("id", "out")
            .collectAsList();
        Map<Long, float[]> out = new HashMap<>();
        for (Row r : rows) {
            out.put(r.getLong(0), Matrices.flatten(r.getList(1)));
        }
        return out;
    }

    /** Multi-head attention with fixed random weights, causal. */
    private static AttentionJob job() {
        RandomTensors rnd = new RandomTensors(3);
        float scale = (float) (1 / Math.sqrt(EMBED));
        MultiHeadAttentionWeights w = MultiHeadAttentionWeights.of(EMBED, HEADS, EMBED, EMBED,
            rnd.normal(EMBED * EMBED, scale), rnd.normal(EMBED * EMBED, scale), rnd.normal(EMBED * EMBED, scale),
            rnd.normal(EMBED, 0.1), rnd.normal(EMBED, 0.1), rnd.normal(EMBED, 0.1),
            rnd.normal(EMBED * EMBED, scale), rnd.normal(EMBED, 0.1));
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults().withCausal(true));
        return new LayerJob(new MultiHeadAttentionLayer(w, kernel), AttentionWeightsMode.NONE);
    }
}
