package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code train} against PyTorch's float64 autograd ({@code cls_*} fixtures), through the real
 * command line: every loss on stdout and every exported tensor within the README's 1e-4, and a
 * model directory that loads, alone and inside a pipeline, and predicts PyTorch's logits.
 */
class TrainCommandFixturesTest {

    /** The fixtures README's tolerance for the loss history, final weights and logits. */
    static final double TOLERANCE = 1e-4;

    @TempDir
    Path dir;

    static String[] fixtures() {
        return TrainFixture.ALL;
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    @DisplayName("stdout is maxIter + 1 lines {iteration, loss}: PyTorch's loss before each step and after the last, "
        + "the last with the training accuracy")
    void lossesOnStdout(String name) throws Exception {
        TrainFixture f = TrainFixture.open(name);
        CommandLineRun run = train(f, dir.resolve("model"), dir.resolve("state.safetensors"));
        assertEquals(0, run.exitCode, run.err);
        List<String> lines = run.outLines();
        double[] expected = f.expectedLosses();
        assertEquals(expected.length, lines.size(), "one line per step and one after the last: " + lines);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = Cli.JSON.readTree(lines.get(i));
            boolean last = i == lines.size() - 1;
            assertEquals(last ? 3 : 2, line.size(), "iteration and loss (and the accuracy last): " + lines.get(i));
            if (last) {
                double accuracy = line.get("training_accuracy").asDouble();
                assertTrue(accuracy >= 0 && accuracy <= 1, "training_accuracy is a share: " + lines.get(i));
            }
            assertEquals(i, line.get("iteration").asInt());
            assertEquals(expected[i], line.get("loss").asDouble(), TOLERANCE * Math.abs(expected[i]),
                name + " loss " + i);
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    @DisplayName("--export-pytorch holds PyTorch's final state_dict within 1e-4 (the key bias only after gd)")
    void exportHoldsTheFinalWeights(String name) throws Exception {
        TrainFixture f = TrainFixture.open(name);
        Path export = dir.resolve("state.safetensors");
        CommandLineRun run = train(f, dir.resolve("model"), export);
        assertEquals(0, run.exitCode, run.err);
        SafeTensors got = SafeTensors.read(export);
        assertEquals(new TreeSet<>(List.of(TrainFixture.STATE_DICT)), new TreeSet<>(got.names()),
            "exactly the reference module's six tensors");
        int e = f.embedDim;
        for (String tensor : TrainFixture.STATE_DICT) {
            double[] ref = f.doubles("expected.final." + tensor);
            double[] values = got.doubles(tensor);
            assertEquals(Arrays.toString(f.st.shape("expected.final." + tensor)), Arrays.toString(got.shape(tensor)),
                tensor + " shape");
            if (tensor.equals("attention.in_proj_bias") && !f.gd()) {
                // The key bias [E, 2E) has a zero gradient; Adam turns its float32 noise into drift (README).
                assertRelative(name + " query bias", Arrays.copyOfRange(ref, 0, e), Arrays.copyOfRange(values, 0, e));
                assertRelative(name + " value bias", Arrays.copyOfRange(ref, 2 * e, 3 * e),
                    Arrays.copyOfRange(values, 2 * e, 3 * e));
            } else {
                assertRelative(name + " " + tensor, ref, values);
            }
        }
    }

    @Test
    @DisplayName("the model directory loads with AttentionClassificationModel.load and in a saved pipeline, and "
        + "predicts PyTorch's final logits")
    void modelLoadsAndPredicts() throws Exception {
        TrainFixture f = TrainFixture.open("cls_basic");
        Path model = dir.resolve("model");
        CommandLineRun run = train(f, model, null);
        assertEquals(0, run.exitCode, run.err);
        assertTrue(Files.isRegularFile(model.resolve(OutputKind.MARKER)), "the directory is marked as this tool's");

        SparkSession spark = SparkSession.active();
        Dataset<Row> rows = spark.read().json(dir.resolve("in.jsonl").toString());
        AttentionClassificationModel loaded = AttentionClassificationModel.load(model.toString());
        assertEquals(f.config.get("num_classes").asInt(), loaded.numClasses());
        assertRelative("logits of the loaded model", f.doubles("expected.logits_final"), logits(loaded.transform(rows)));

        PipelineModel pipeline = new Pipeline().setStages(new PipelineStage[] {loaded}).fit(rows);
        pipeline.write().save(dir.resolve("pipeline").toString());
        PipelineModel reloaded = PipelineModel.load(dir.resolve("pipeline").toString());
        assertRelative("logits through a saved pipeline", f.doubles("expected.logits_final"),
            logits(reloaded.transform(rows)));
        List<Row> predictions = reloaded.transform(rows).select("prediction").collectAsList();
        assertEquals(f.rows, predictions.size());
    }

    /** Writes the fixture's input and initial weights into {@code dir} and runs {@code train}. */
    private CommandLineRun train(TrainFixture f, Path model, Path export) throws Exception {
        Path input = f.writeInput(dir.resolve("in.jsonl"));
        Path initial = f.writeInitial(dir.resolve("initial.safetensors"));
        return CommandLineRun.of(f.args(input, initial, model, export).toArray(new String[0]));
    }

    /** The rawPrediction vectors, in row order, flattened. */
    private static double[] logits(Dataset<Row> predicted) {
        List<Row> rows = predicted.select("rawPrediction").collectAsList();
        return rows.stream().flatMapToDouble(r -> Arrays.stream(((Vector) r.get(0)).toArray())).toArray();
    }

    /** ‖got − ref‖ / ‖ref‖ ≤ 1e-4. */
    static void assertRelative(String what, double[] ref, double[] got) {
        assertEquals(ref.length, got.length, what + ": length");
        double diff = 0, norm = 0;
        for (int i = 0; i < ref.length; i++) {
            diff += (got[i] - ref[i]) * (got[i] - ref[i]);
            norm += ref[i] * ref[i];
        }
        double relative = Math.sqrt(norm == 0 ? diff : diff / norm);
        assertTrue(relative <= TOLERANCE, String.format("%s: relative error %.3g", what, relative));
    }
}
