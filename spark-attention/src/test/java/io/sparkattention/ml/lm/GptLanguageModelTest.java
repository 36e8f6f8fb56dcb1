package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.GptCases;
import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link GptLanguageModel}: PyTorch's numbers through the stage, its columns, persistence and bad rows. */
class GptLanguageModelTest {

    @TempDir
    static Path dir;

    private static GptLanguageModel lm;
    private static SafeTensors score;

    @BeforeAll
    static void model() {
        SparkTestSession.get();
        score = GptCases.open("gpt_score");
        lm = GptLanguageModel.fromDirectory(GptCases.writeDirectory("gpt_score", dir.resolve("gpt_score")).toString());
    }

    @Test
    @DisplayName("gpt_score: every row's log_prob within 1e-5 relative of PyTorch's float64, tokens L - 1, perplexity "
        + "exp(-log_prob / tokens), token log-probabilities adding up to log_prob")
    void scoresAsPyTorch() {
        int[][] rows = GptCases.rows(score);
        double[] expected = GptCases.doubles(score, "expected.log_prob");
        Dataset<Row> scored = lm.copy(new org.apache.spark.ml.param.ParamMap()).setTokenLogProbs(true)
            .transform(LmRows.frame(rows, 3));
        assertEquals(List.of("id", "input_ids", "log_prob", "tokens", "perplexity", "token_log_probs"),
            List.of(scored.columns()));
        List<Row> out = scored.orderBy("id").collectAsList();
        for (int r = 0; r < rows.length; r++) {
            Row row = out.get(r);
            double logProb = row.getDouble(2);
            assertEquals(expected[r], logProb, 1e-5 * Math.abs(expected[r]), "row " + r);
            assertEquals(rows[r].length - 1, row.getInt(3));
            assertEquals(Math.exp(-logProb / (rows[r].length - 1)), row.getDouble(4), 0.0);
            List<Double> perToken = row.getList(5);
            assertEquals(rows[r].length - 1, perToken.size());
            double sum = 0;
            for (double p : perToken) {
                sum += p;
            }
            assertEquals(logProb, sum, 0.0, "log_prob is the per-token values' sum in token order");
        }
    }

    @Test
    @DisplayName("a row of one token: tokens 0, log_prob 0, perplexity null; a row past the positions: the sliding "
        + "window the decoder gives it alone")
    void shortAndLongRows() {
        GptDecoder decoder = lm.decoder();
        int positions = decoder.config().positions();
        int[] longRow = new int[positions * 2 + 7];
        for (int i = 0; i < longRow.length; i++) {
            longRow[i] = (i * 31 + 7) % decoder.config().vocabSize();
        }
        GptLanguageModel strided = lm.copy(new org.apache.spark.ml.param.ParamMap()).setStride(16);
        List<Row> out = strided.transform(LmRows.frame(new int[][] {{5}, longRow}, 2)).orderBy("id").collectAsList();
        assertEquals(0.0, out.get(0).getDouble(2));
        assertEquals(0, out.get(0).getInt(3));
        assertNull(out.get(0).get(4));
        double sum = 0;
        for (double p : decoder.tokenLogProbs(longRow, 16)) {
            sum += p;
        }
        assertEquals(sum, out.get(1).getDouble(2), 0.0);
        assertEquals(longRow.length - 1, out.get(1).getInt(3));
        assertEquals((positions + 1) / 2, lm.copy(new org.apache.spark.ml.param.ParamMap()).resolvedStride(),
            "the default stride: half the window");
    }

    @Test
    @DisplayName("gpt_generate_greedy: PyTorch's 12 greedy ids after prompts of 1, 4, 11 and 30 ids, through the stage")
    void greedyAsPyTorch() {
        SafeTensors greedy = GptCases.open("gpt_generate_greedy");
        GptLanguageModel model = GptLanguageModel.fromDirectory(
            GptCases.writeDirectory("gpt_generate_greedy", dir.resolve("greedy")).toString());
        int[][] prompts = GptCases.rows(greedy);
        int n = GptCases.config(greedy).get("max_new_tokens").asInt();
        long[] expected = GptCases.longs(greedy, "expected.generated");
        Map<Long, Object> generated = LmRows.byId(model.setMaxNewTokens(n).generate(LmRows.frame(prompts, 2)),
            "generated_ids");
        for (int r = 0; r < prompts.length; r++) {
            int[] want = new int[n];
            for (int i = 0; i < n; i++) {
                want[i] = (int) expected[r * n + i];
            }
            @SuppressWarnings("unchecked")
            List<Integer> got = (List<Integer>) generated.get((long) r);
            assertArrayEquals(want, got.stream().mapToInt(Integer::intValue).toArray(), "prompt " + r);
        }
    }

    @Test
    @DisplayName("write/load: the params, the Hugging Face directory under data/ and the same bits")
    void savesAndLoads() throws Exception {
        GptLanguageModel tuned = lm.copy(new org.apache.spark.ml.param.ParamMap()).setStride(20).setTokenLogProbs(true)
            .setTemperature(0.7).setTopK(5).setSeed(11).setMaxNewTokens(4).setTruncatePrompt(true);
        String path = dir.resolve("saved").toString();
        tuned.write().save(path);
        assertTrue(Files.isRegularFile(Path.of(path, "data", "config.json")));
        assertTrue(Files.isRegularFile(Path.of(path, "data", "model.safetensors")));
        GptLanguageModel loaded = GptLanguageModel.load(path);
        assertEquals(tuned.uid(), loaded.uid());
        assertEquals(20, loaded.getStride());
        assertEquals(0.7, loaded.getTemperature());
        Dataset<Row> rows = LmRows.frame(GptCases.rows(score), 2);
        assertEquals(LmRows.byId(tuned.transform(rows), "token_log_probs"),
            LmRows.byId(loaded.transform(rows), "token_log_probs"));
        assertEquals(LmRows.byId(tuned.generate(rows), "generated_ids"),
            LmRows.byId(loaded.generate(rows), "generated_ids"));
    }

    @Test
    @DisplayName("bad rows name the row, column and position; params that do not fit the model name the param")
    void badInput() {
        int vocab = lm.decoder().config().vocabSize();
        int positions = lm.decoder().config().positions();
        GptLanguageModel model = lm.copy(new org.apache.spark.ml.param.ParamMap());
        String outside = RootCause.message(assertThrows(Exception.class,
            () -> model.checkRows(LmRows.frame(new int[][] {{1, 2}, {3, vocab, 4}}, 1), false)));
        assertTrue(outside.contains("row 1: column input_ids: token id " + vocab + " at position 1 is outside the "
            + "model's vocabulary [0, " + vocab + ")"), outside);
        String isNull = RootCause.message(assertThrows(Exception.class,
            () -> model.transform(LmRows.frame(new int[][] {{1, 2}, null}, 1)).collectAsList()));
        assertTrue(isNull.contains("row 1: column input_ids is null"), isNull);
        assertEquals(1, model.copy(new org.apache.spark.ml.param.ParamMap()).setHandleInvalid("skip")
            .transform(LmRows.frame(new int[][] {{1, 2}, null}, 1)).count());
        int[] tooLong = new int[positions - 3];
        String prompt = RootCause.message(assertThrows(Exception.class, () -> model.setMaxNewTokens(4)
            .checkRows(LmRows.frame(new int[][] {tooLong}, 1), true)));
        assertTrue(prompt.contains("has " + tooLong.length + " token ids, more than the " + (positions - 4)), prompt);
        String empty = RootCause.message(assertThrows(Exception.class,
            () -> model.generate(LmRows.frame(new int[][] {{}}, 1)).collectAsList()));
        assertTrue(empty.contains("has 0 token ids; a row needs at least 1"), empty);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> model.setMaxNewTokens(positions)
            .generateSchema(LmRows.SCHEMA)).getMessage().contains("maxNewTokens " + positions));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> model.setStride(positions + 1)
            .transformSchema(LmRows.SCHEMA)).getMessage().contains("stride " + (positions + 1)));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> model.setInputCol("id")
            .transformSchema(LmRows.SCHEMA)).getMessage().contains("column id (inputCol): expected array<int>"));
    }
}
