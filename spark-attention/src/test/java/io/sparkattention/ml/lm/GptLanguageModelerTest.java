package io.sparkattention.ml.lm;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.GptCases;
import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GptLanguageModeler} on a real SparkSession: PyTorch's trajectory on the
 * gpt_train_adamw_warmup_clip fixture continued from its directory, a new byte-level model trained
 * from texts with a held-out fraction, the same bits under any partitioning of the input, and bad
 * input refused naming the row, column or param.
 */
class GptLanguageModelerTest {

    private static final String CASE = "gpt_train_adamw_warmup_clip";

    @TempDir
    static Path dir;

    @Test
    @DisplayName(CASE + " continued from its directory (ids, packing off, full batch, dropout 0): the loss before "
        + "every step and after the last within 1e-4 relative of PyTorch's float64, every final tensor within 1e-4 of "
        + "its largest value (the key third of c_attn.bias within lr per step)")
    void followsPyTorch() {
        SafeTensors st = GptCases.open(CASE);
        JsonNode cfg = GptCases.config(st);
        int steps = cfg.get("steps").asInt();
        double lr = cfg.get("step_size").asDouble();
        GptLanguageModel model = new GptLanguageModeler()
            .setInitialWeightsPath(GptCases.writeDirectory(CASE, dir.resolve(CASE)).toString())
            .setIdsCol("input_ids").setPacking(false).setSolver(cfg.get("solver").asText()).setStepSize(lr)
            .setWeightDecay(cfg.get("weight_decay").asDouble()).setWarmupSteps(cfg.get("warmup_steps").asInt())
            .setMaxGradNorm(cfg.get("max_grad_norm").asDouble()).setDropout(0).setMaxIter(steps)
            .setMiniBatchFraction(1).setTol(0).fit(LmRows.frame(GptCases.rows(st), 3));
        double[] history = model.summary().objectiveHistory();
        double[] expected = GptCases.doubles(st, "expected.loss_history");
        assertEquals(steps + 1, history.length);
        for (int t = 0; t < steps; t++) {
            assertEquals(expected[t], history[t], 1e-4 * Math.abs(expected[t]), "loss before step " + t);
        }
        double last = GptCases.doubles(st, "expected.final_loss")[0];
        assertEquals(last, history[steps], 1e-4 * Math.abs(last), "loss after the last step");
        GptWeights trained = model.decoder().weights();
        double lrSum = lr * (0 + 1 / 2.0 + 6 / 6.0 + 5 / 6.0 + 4 / 6.0 + 3 / 6.0 + 2 / 6.0 + 1 / 6.0);
        int width = trained.config().hidden();
        for (String name : GptWeights.shapes(trained.config()).keySet()) {
            double[] want = GptCases.doubles(st, "expected.final." + name);
            float[] got = trained.tensor(name);
            double largest = 0;
            for (double w : want) {
                largest = Math.max(largest, Math.abs(w));
            }
            for (int i = 0; i < want.length; i++) {
                boolean keyBias = name.endsWith("attn.c_attn.bias") && i >= width && i < 2 * width;
                double bound = keyBias ? lrSum : 1e-4 * largest;
                assertTrue(Math.abs(got[i] - want[i]) <= bound, name + "[" + i + "] = " + got[i] + ", PyTorch "
                    + want[i]);
            }
        }
        assertEquals(0, model.summary().validationIterations().length, "no validation asked for");
    }

    /** Texts of a small made-up language, in one order, split into {@code partitions} runs of consecutive rows. */
    private static Dataset<Row> texts(int partitions) {
        String[] words = {"the", "cat", "sat", "on", "a", "mat", "and", "the", "dog", "ran", "to", "it"};
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < 40; r++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 6 + r % 5; w++) {
                text.append(w == 0 ? "" : " ").append(words[(r + w * (1 + r % 3)) % words.length]);
            }
            rows.add(RowFactory.create((long) r, text.toString()));
        }
        StructType schema = new StructType().add("id", DataTypes.LongType).add("text", DataTypes.StringType);
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());
        return SparkTestSession.get().createDataFrame(sc.parallelize(rows, partitions), schema);
    }

    private static GptLanguageModeler byteModel() {
        return new GptLanguageModeler().setNLayer(1).setNEmbd(16).setNHead(2).setBlockSize(32).setTokenizer("bytes")
            .setValidationFraction(0.2).setEvalEvery(3).setStepSize(1e-2).setWarmupSteps(2).setSchedule("cosine")
            .setDropout(0.1).setMaxIter(8).setRowsPerStep(6).setSeed(5).setNumPartitions(3);
    }

    @Test
    @DisplayName("a new byte-level model from texts: packed blocks, every 5th held out, validation before steps 0, 3, "
        + "6 and after 8, the loss falling; the same bits from the input in 1 or 4 partitions; it generates text")
    void trainsFromTexts() {
        List<double[]> histories = new ArrayList<>();
        List<double[]> validations = new ArrayList<>();
        List<Integer> heard = new ArrayList<>();
        GptLanguageModel model = null;
        for (int partitions : new int[] {1, 4}) {
            model = byteModel().setValidationListener((i, loss) -> heard.add(i)).fit(texts(partitions));
            histories.add(model.summary().objectiveHistory());
            validations.add(model.summary().validationHistory());
        }
        assertArrayEquals(new int[] {0, 3, 6, 8}, model.summary().validationIterations());
        assertEquals(List.of(0, 3, 6, 8, 0, 3, 6, 8), heard, "the listener hears each validation loss");
        assertArrayEquals(histories.get(0), histories.get(1), "the history does not depend on the input's partitions");
        assertArrayEquals(validations.get(0), validations.get(1));
        double[] v = validations.get(0);
        assertTrue(v[v.length - 1] < v[0], "the validation loss falls: " + java.util.Arrays.toString(v));
        assertEquals(256, model.decoder().config().vocabSize());
        assertEquals(32, model.decoder().config().positions());
        assertTrue(model.hasTokenizer());
        List<Row> out = model.setMaxNewTokens(5).generate(LmRows.frame(new int[][] {{116, 104, 101}}, 1))
            .collectAsList();
        assertEquals(5, out.get(0).getList(out.get(0).fieldIndex("generated_ids")).size());
    }

    @Test
    @DisplayName("bad input: an id outside the vocabulary (row and column named), a row past the positions without "
        + "packing, evalEvery without validation, a weight column, texts without a tokenizer, nEmbd not divisible")
    void refusesBadInput() {
        Path fixture = GptCases.writeDirectory(CASE, dir.resolve("bad"));
        GptLanguageModeler continued = new GptLanguageModeler().setInitialWeightsPath(fixture.toString())
            .setIdsCol("input_ids").setPacking(false).setMaxIter(1);
        String outside = RootCause.message(assertThrows(Exception.class,
            () -> continued.fit(LmRows.frame(new int[][] {{1, 2}, {3, 97}}, 2))));
        assertTrue(outside.startsWith("row 2: column input_ids: token id 97 at position 1 is outside"), outside);
        String tooLong = RootCause.message(assertThrows(Exception.class,
            () -> continued.fit(LmRows.frame(new int[][] {{1, 2}, new int[65]}, 1))));
        assertTrue(tooLong.startsWith("row 2: column input_ids has 65 token ids, more than the model's 64 positions"),
            tooLong);
        String noValidation = assertThrows(IllegalArgumentException.class, () -> continued.copy(
            new org.apache.spark.ml.param.ParamMap()).setEvalEvery(5).fit(LmRows.frame(new int[][] {{1, 2}}, 1)))
            .getMessage();
        assertTrue(noValidation.startsWith("evalEvery 5 needs validation sequences"), noValidation);
        String weights = assertThrows(IllegalArgumentException.class, () -> continued.copy(
            new org.apache.spark.ml.param.ParamMap()).setWeightCol("w").fit(LmRows.frame(new int[][] {{1, 2}}, 1)))
            .getMessage();
        assertTrue(weights.startsWith("weightCol w: every sequence of a language model weighs 1"), weights);
        String noTokenizer = assertThrows(IllegalArgumentException.class, () -> new GptLanguageModeler()
            .setInitialWeightsPath(fixture.toString()).fit(texts(1))).getMessage();
        assertTrue(noTokenizer.contains("has no tokenizer.json"), noTokenizer);
        String width = assertThrows(IllegalArgumentException.class, () -> new GptLanguageModeler().setNEmbd(10)
            .setNHead(4).fit(texts(1))).getMessage();
        assertEquals("nEmbd 10 is not divisible by nHead 4", width);
    }
}
