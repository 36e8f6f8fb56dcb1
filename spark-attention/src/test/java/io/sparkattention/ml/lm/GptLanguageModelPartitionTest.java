package io.sparkattention.ml.lm;

import io.sparkattention.testing.GptCases;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Each row's numbers are bitwise the same under any partitioning and company: scoring (every
 * token's log-probability, compared as bits through their boxed doubles) and sampled generation
 * on 1, 3 and 7 partitions, with small and large batches, and with the rows shuffled (generation
 * keyed by a row key column).
 */
class GptLanguageModelPartitionTest {

    private static final int ROWS = 23;

    @TempDir
    static Path dir;

    private static GptLanguageModel lm;
    private static int[][] rows;

    @BeforeAll
    static void model() {
        SparkTestSession.get();
        lm = GptLanguageModel.fromDirectory(GptCases.writeDirectory("gpt_score", dir.resolve("m")).toString());
        int vocab = lm.decoder().config().vocabSize();
        int positions = lm.decoder().config().positions();
        Random random = new Random(5);
        rows = new int[ROWS][];
        for (int r = 0; r < ROWS; r++) {
            // Lengths from 1 to past the positions (sliding windows), ragged, so batches mix them.
            rows[r] = new int[r == 0 ? 1 : 2 + random.nextInt(positions + positions / 2)];
            for (int i = 0; i < rows[r].length; i++) {
                rows[r][i] = random.nextInt(vocab);
            }
        }
    }

    private static GptLanguageModel scoring(int batchRows) {
        return lm.copy(new ParamMap()).setTokenLogProbs(true).setStride(24).setBatchRows(batchRows);
    }

    private static GptLanguageModel sampling(int batchRows) {
        // Prompts short enough for 10 new ids: the long rows are left-truncated.
        return lm.copy(new ParamMap()).setBatchRows(batchRows).setMaxNewTokens(10).setTemperature(0.9).setTopK(40)
            .setTopP(0.95).setSeed(17).setTruncatePrompt(true);
    }

    @Test
    @DisplayName("scoring: 1, 3 and 7 partitions, batches of 1 and 64 rows, shuffled rows: the same bits per row")
    void scoringIsPartitionInvariant() {
        Map<Long, Object> expected = LmRows.byId(scoring(64).transform(LmRows.frame(rows, 1)), "token_log_probs");
        assertEquals(ROWS, expected.size());
        for (int partitions : new int[] {1, 3, 7}) {
            for (int batchRows : new int[] {1, 64}) {
                assertEquals(expected, LmRows.byId(scoring(batchRows).transform(LmRows.frame(rows, partitions)),
                    "token_log_probs"), partitions + " partitions, batches of " + batchRows);
            }
        }
        assertEquals(expected, LmRows.byId(scoring(5).transform(LmRows.frame(rows, shuffled(), 3)),
            "token_log_probs"), "shuffled rows");
        Map<Long, Object> logProbs = LmRows.byId(scoring(64).transform(LmRows.frame(rows, 7)), "log_prob");
        assertEquals(LmRows.byId(scoring(3).transform(LmRows.frame(rows, 1)), "log_prob"), logProbs);
    }

    @Test
    @DisplayName("sampled generation: keyed by the row's position, the same ids on 1, 3 and 7 partitions; keyed by a "
        + "column, the same ids with the rows shuffled")
    void generationIsPartitionInvariant() {
        Map<Long, Object> expected = LmRows.byId(sampling(64).generate(LmRows.frame(rows, 1)), "generated_ids");
        for (int partitions : new int[] {1, 3, 7}) {
            for (int batchRows : new int[] {1, 64}) {
                assertEquals(expected, LmRows.byId(sampling(batchRows).generate(LmRows.frame(rows, partitions)),
                    "generated_ids"), partitions + " partitions, batches of " + batchRows);
            }
        }
        Map<Long, Object> keyed = LmRows.byId(sampling(64).setRowKeyCol("id").generate(LmRows.frame(rows, 1)),
            "generated_ids");
        assertEquals(keyed, LmRows.byId(sampling(4).setRowKeyCol("id").generate(LmRows.frame(rows, shuffled(), 7)),
            "generated_ids"), "shuffled rows keyed by id");
        assertNotEquals(keyed, LmRows.byId(sampling(64).setRowKeyCol("id").setSeed(18)
            .generate(LmRows.frame(rows, 1)), "generated_ids"), "another seed samples other ids");
    }

    private static long[] shuffled() {
        List<Long> ids = new ArrayList<>();
        for (long i = 0; i < ROWS; i++) {
            ids.add(i);
        }
        Collections.shuffle(ids, new Random(3));
        return ids.stream().mapToLong(Long::longValue).toArray();
    }
}
