package io.sparkattention.exec;

import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.testing.GptCases;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An executor JVM killed (SIGKILL) while {@link GptLanguageModel} scores and while it generates with
 * sampling on, on a two-executor cluster: the job completes and every output row equals the
 * fault-free run's bit for bit (each token's log-probability; each row's sampled ids, keyed by its
 * position in the input, which the retried tasks recount). The rows (ragged ids, some past the
 * model's positions) are generated on the executors from row ids, so a recomputed partition is the
 * same data; {@link #PARTITIONS} partitions give each executor several tasks.
 */
class LanguageModelExecutorLossIT {

    private static final int ROWS = 96;
    private static final int PARTITIONS = 8;

    @TempDir
    static Path dir;

    private static GptLanguageModel lm;
    private final SparkSession spark = ClusterTestSession.get();

    @BeforeAll
    static void model() {
        lm = GptLanguageModel.fromDirectory(GptCases.writeDirectory("gpt_score", dir.resolve("gpt")).toString());
    }

    @BeforeEach
    void executors() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
    }

    /** Rows {@code id}, {@code input_ids}: 1 to 100 ids each (the model has 64 positions), from the row id. */
    private Dataset<Row> rows() {
        return spark.range(0, ROWS, 1, PARTITIONS).withColumn("input_ids",
            expr("transform(sequence(0, cast(id * 37 % 100 as int)), i -> cast(pmod(id * 31 + i * 17 + i * i, 97) "
                + "as int))"));
    }

    @Test
    @DisplayName("an executor killed mid-scoring: every row's token log-probabilities, bit for bit")
    void killedWhileScoring() {
        GptLanguageModel scoring = lm.copy(new org.apache.spark.ml.param.ParamMap()).setTokenLogProbs(true)
            .setStride(24).setBatchRows(4);
        Supplier<List<Row>> run = () -> scoring.transform(rows()).select("id", "token_log_probs", "log_prob")
            .orderBy("id").collectAsList();
        assertSameAfterKill(run, 0);
    }

    @Test
    @DisplayName("an executor killed mid-generation, sampling on: every row's new ids, bit for bit")
    void killedWhileGenerating() {
        GptLanguageModel sampling = lm.copy(new org.apache.spark.ml.param.ParamMap()).setMaxNewTokens(12)
            .setTemperature(0.9).setTopK(30).setTopP(0.9).setSeed(29).setTruncatePrompt(true).setBatchRows(4);
        Supplier<List<Row>> run = () -> sampling.generate(rows()).select(col("id"), col("generated_ids"))
            .orderBy("id").collectAsList();
        // generate first counts each partition's rows (the rows' keys): the kill hits the next job, the work.
        assertSameAfterKill(run, 1);
    }

    private void assertSameAfterKill(Supplier<List<Row>> run, int jobsToSkip) {
        List<Row> expected = run.get();
        assertEquals(ROWS, expected.size());
        ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
        spark.sparkContext().addSparkListener(killer);
        List<Row> got;
        try {
            killer.armAtJob(jobsToSkip);
            got = run.get();
        } finally {
            spark.sparkContext().removeSparkListener(killer);
        }
        assertNotNull(killer.killedExecutor(), "an executor was killed during the job");
        assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1, "tasks failed or stages were re-run");
        // Row.equals compares doubles by their bits (boxed Double.equals), arrays element by element.
        assertEquals(expected, got);
    }
}
