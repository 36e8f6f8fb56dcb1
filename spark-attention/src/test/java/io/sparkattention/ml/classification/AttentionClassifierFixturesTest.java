package io.sparkattention.ml.classification;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stage against PyTorch's float64 autograd ({@code cls_*} fixtures): fitted through Spark
 * from the fixture's starting state_dict, it gives PyTorch's loss history, final weights and
 * final logits within the README's tolerances.
 */
class AttentionClassifierFixturesTest {

    /** The README's tolerance for loss history, final weights and logits after training. */
    private static final double TRAINING_TOLERANCE = 1e-4;

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    static AttentionClassifier stageFor(ClassifierData.Fixture f, Path initial) {
        return new AttentionClassifier()
            .setNumHeads(f.config.get("num_heads").asInt())
            .setCausal(f.config.get("causal").asBoolean())
            .setResidual(f.config.get("residual").asBoolean())
            .setPooling(f.text("pooling"))
            .setSolver(f.text("solver"))
            .setMaxIter(f.config.get("steps").asInt())
            .setStepSize(f.config.get("step_size").asDouble())
            .setWeightDecay(f.config.get("weight_decay").asDouble())
            .setInitialWeightsPath(initial.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cls_basic", "cls_causal_last", "cls_first_noresidual_gd", "cls_weighted_adamw"})
    @DisplayName("fit through Spark gives PyTorch's loss history, final weights and final logits within 1e-4")
    void fitMatchesPyTorch(String name) throws IOException {
        ClassifierData.Fixture f = ClassifierData.Fixture.open(name);
        AttentionClassifier stage = stageFor(f, f.writeInitial(dir));
        if (f.weights != null) {
            stage.setWeightCol("weight");
        }
        Dataset<Row> df = f.frame(spark, false, 2);
        AttentionClassificationModel model = stage.fit(df);
        assertMatches(name, f, model, df);
    }

    @Test
    @DisplayName("padded rows with a key length column train exactly like the rows cut to their length")
    void keyLengthTruncatesRows() throws IOException {
        ClassifierData.Fixture f = ClassifierData.Fixture.open("cls_basic");
        AttentionClassifier stage = stageFor(f, f.writeInitial(dir)).setKeyLengthCol("key_length");
        Dataset<Row> df = f.frame(spark, true, 2);
        assertMatches("cls_basic padded", f, stage.fit(df), df);
    }

    private static void assertMatches(String name, ClassifierData.Fixture f, AttentionClassificationModel model,
                                      Dataset<Row> df) throws IOException {
        int steps = f.config.get("steps").asInt();
        double[] history = model.summary().objectiveHistory();
        assertEquals(steps + 1, history.length, "maxIter + 1 entries");
        assertEquals(steps, model.summary().totalIterations());
        double[] expected = Arrays.copyOf(f.st.doubles("expected.loss_history"), steps + 1);
        expected[steps] = f.st.doubles("expected.final_loss")[0];
        assertRelative(name + " objective history", expected, history);

        float[] theta = model.parameters();
        boolean gd = "gd".equals(f.text("solver"));
        int e = f.embedDim;
        int offset = 0;
        for (String tensor : ClassifierData.STATE_DICT) {
            double[] ref = f.tensor("expected.final.", tensor);
            double[] got = new double[ref.length];
            for (int i = 0; i < ref.length; i++) {
                got[i] = theta[offset + i];
            }
            if (tensor.equals("attention.in_proj_bias") && !gd) {
                // The key bias [E, 2E) has a zero gradient; Adam turns its float32 noise into drift (README).
                assertRelative(name + " final query bias", Arrays.copyOfRange(ref, 0, e), Arrays.copyOfRange(got, 0, e));
                assertRelative(name + " final value bias", Arrays.copyOfRange(ref, 2 * e, 3 * e),
                    Arrays.copyOfRange(got, 2 * e, 3 * e));
            } else {
                assertRelative(name + " final " + tensor, ref, got);
            }
            offset += ref.length;
        }
        assertEquals(theta.length, offset, "the flat vector holds the six state_dict tensors in order");

        List<Row> rows = model.transform(df).orderBy("id").select("rawPrediction").collectAsList();
        assertEquals(f.rows, rows.size());
        double[] got = new double[f.rows * model.numClasses()];
        for (int r = 0; r < f.rows; r++) {
            double[] raw = ((Vector) rows.get(r).get(0)).toArray();
            System.arraycopy(raw, 0, got, r * raw.length, raw.length);
        }
        assertRelative(name + " logits after training", f.st.doubles("expected.logits_final"), got);
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
        assertTrue(relative <= TRAINING_TOLERANCE, String.format("%s: relative error %.3g (ref %s, got %s)", what,
            relative, Arrays.toString(Arrays.copyOf(ref, Math.min(6, ref.length))),
            Arrays.toString(Arrays.copyOf(got, Math.min(6, got.length)))));
    }
}
