package io.sparkattention.examples.bench.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.bench.TorchClassifierTrainer;
import io.sparkattention.examples.bench.TorchClassifierTrainer.Batch;
import io.sparkattention.examples.bench.TorchClassifierTrainer.Spec;
import io.sparkattention.io.SafeTensors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PyTorch peer's attention-classifier trainer takes PyTorch's training steps: replaying the
 * library's training fixtures (make_training_fixtures.py, PyTorch autograd in float64 from float32
 * starting points: ragged rows with a key padding mask, Adam or AdamW, row weights), its float32
 * loss history, final loss and final weights land within the fixtures' float32 tolerances
 * (loss ≤ 1e-4 relative, weights ≤ 1e-4 relative per tensor, the key bias left out after Adam).
 */
class DjlAttentionClassifierTrainerTest {

    /** The fixtures, in the library's test resources (Surefire runs in this module's directory). */
    private static final Path FIXTURES = Path.of(System.getProperty("basedir", "."), "..", "..", "spark-attention",
        "src", "test", "resources", "fixtures", "training");
    private static final String[] NAMES = {"attention.in_proj_weight", "attention.in_proj_bias",
        "attention.out_proj.weight", "attention.out_proj.bias", "classifier.weight", "classifier.bias"};

    private static DjlTorchRuntime runtime;

    @BeforeAll
    static void start() {
        runtime = new DjlTorchRuntime();
    }

    /** One fixture's spec, starting weights and batch. */
    private record Case(SafeTensors fixture, Spec spec, Map<String, float[]> initial, Batch batch) {
        static Case read(String name) throws IOException {
            SafeTensors fixture = SafeTensors.read(FIXTURES.resolve(name + ".safetensors"));
            JsonNode c = new ObjectMapper().readTree(fixture.metadata().get("config"));
            Spec spec = new Spec(c.get("embed_dim").asInt(), c.get("num_heads").asInt(), c.get("num_classes").asInt(),
                c.get("causal").asBoolean(), c.get("residual").asBoolean(), c.get("pooling").asText(),
                c.get("step_size").asDouble(), c.get("weight_decay").asDouble());
            Map<String, float[]> initial = new LinkedHashMap<>();
            for (String n : NAMES) {
                initial.put(n, fixture.floats("initial." + n));
            }
            int[] shape = fixture.intShape("input.query");
            int[] lengths = Arrays.stream(fixture.longs("input.lengths")).mapToInt(x -> (int) x).toArray();
            int[] labels = Arrays.stream(fixture.doubles("input.label")).mapToInt(x -> (int) x).toArray();
            float[] weights = new float[lengths.length];
            Arrays.fill(weights, 1f);
            if (fixture.has("input.weight")) {
                weights = fixture.floats("input.weight");
            }
            return new Case(fixture, spec, initial,
                new Batch(fixture.floats("input.query"), shape[1], lengths, labels, weights));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cls_basic", "cls_causal_last", "cls_weighted_adamw"})
    void replaysTheFixturesAdamStepsWithinFloat32(String name) throws IOException {
        Case c = Case.read(name);
        double[] history = c.fixture().doubles("expected.loss_history");
        try (TorchClassifierTrainer trainer = runtime.classifierTrainer(c.initial(), c.spec())) {
            for (int s = 0; s < history.length; s++) {
                double loss = trainer.step(c.batch());
                assertEquals(history[s], loss, 1e-4 * Math.abs(history[s]), name + ": loss before step " + s);
            }
            double last = c.fixture().doubles("expected.final_loss")[0];
            assertEquals(last, trainer.loss(c.batch()), 1e-4 * Math.abs(last), name + ": final loss");
            for (String n : NAMES) {
                float[] got = trainer.parameter(n);
                double[] want = c.fixture().doubles("expected.final." + n);
                int e = c.spec().embedDim();
                double diff = 0, norm = 0;
                for (int i = 0; i < got.length; i++) {
                    boolean keyBias = n.equals(NAMES[1]) && i >= e && i < 2 * e;
                    if (!keyBias) {
                        diff += (got[i] - want[i]) * (got[i] - want[i]);
                        norm += want[i] * want[i];
                    }
                }
                assertTrue(Math.sqrt(diff) <= 1e-4 * Math.sqrt(norm), name + ": final " + n + " off by "
                    + Math.sqrt(diff / norm) + " relative");
            }
        }
    }

    @Test
    void refusesALabelOutsideTheClasses() throws IOException {
        Case c = Case.read("cls_basic");
        int[] labels = c.batch().labels().clone();
        labels[2] = c.spec().numClasses();
        Batch bad = new Batch(c.batch().tokens(), c.batch().seqLen(), c.batch().lengths(), labels,
            c.batch().weights());
        try (TorchClassifierTrainer trainer = runtime.classifierTrainer(c.initial(), c.spec())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> trainer.step(bad));
            assertTrue(e.getMessage().contains("row 2"), e.getMessage());
        }
    }
}
