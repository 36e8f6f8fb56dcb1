package io.sparkattention.examples.bench.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import io.sparkattention.examples.bench.TorchPeers;
import io.sparkattention.examples.bench.TorchRuntime;
import io.sparkattention.io.BundledModels;
import io.sparkattention.bert.BertEncoder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PyTorch peer computes what the library computes: its MiniLM forward on padded batches
 * against the library's encoder text by text, its autograd gradients against float64 central
 * differences on a small random BERT, and its AdamW step (with clipping and decay groups) against
 * the update written out from those gradients.
 */
class DjlBertTest {

    private static DjlTorchRuntime runtime;

    @BeforeAll
    static void start() {
        runtime = new DjlTorchRuntime();
    }

    @Test
    void miniLmOnPaddedBatchesMatchesTheLibraryEncoder() throws Exception {
        BertEncoder library = BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
        SplittableRandom random = new SplittableRandom(7);
        // awkward lengths padded together: the shortest text ([CLS] [SEP]), odd ones, one past 128
        int[] lengths = {2, 3, 17, 64, 1, 131, 40};
        int[][] ids = new int[lengths.length][];
        for (int r = 0; r < ids.length; r++) {
            ids[r] = new int[lengths[r]];
            for (int j = 0; j < lengths[r]; j++) {
                ids[r][j] = j == 0 ? 101 : j == lengths[r] - 1 ? 102 : random.nextInt(1996, 30522);
            }
        }
        try (TorchRuntime.Encoder encoder = runtime.encoder(TorchPeers.tensors(library));
             TorchRuntime.Batch batch = encoder.batch(ids)) {
            assertEquals(131, batch.longest());
            float[] states = batch.run();
            int hidden = library.config().hidden();
            assertEquals(ids.length * 131 * hidden, states.length);
            for (int r = 0; r < ids.length; r++) {
                float[] expected = library.forward(ids[r]);
                double worst = 0;
                for (int i = 0; i < expected.length; i++) {
                    worst = Math.max(worst, Math.abs(expected[i] - states[r * 131 * hidden + i]));
                }
                assertTrue(worst < 2e-4, "text " + r + " (" + lengths[r] + " tokens): max abs diff " + worst);
            }
            // a second run of the same inputs gives the same states
            float[] again = batch.run();
            assertEquals(0, java.util.Arrays.compare(states, again));
        }
    }

    @Test
    void autogradGradientsMatchCentralDifferences() {
        TorchRuntime.FineTuneSpec spec = spec(3, false, 0.0);
        try (DjlFineTuner tuner = new DjlFineTuner(Engine.getEngine("PyTorch"), tinyBert(), spec, DataType.FLOAT64)) {
            int[][] ids = {{1, 5, 7, 2}, {1, 2}, {1, 9, 3, 11, 4, 2}};
            int[] labels = {2, 0, 1};
            Map<String, double[]> analytic = new LinkedHashMap<>();
            try (NDScope scope = new NDScope()) {
                scope.suppressNotUsedWarning();
                tuner.backward(ids, labels, false);
                for (String name : tuner.names()) {
                    analytic.put(name, tuner.gradient64(name));
                }
            }
            SplittableRandom random = new SplittableRandom(3);
            double h = 1e-6;
            int checked = 0;
            for (String name : tuner.names()) {
                double[] value = tuner.parameter64(name);
                for (int probe = 0; probe < 3; probe++) {
                    int i = random.nextInt(value.length);
                    tuner.set(name, i, value[i] + h);
                    double plus = loss(tuner, ids, labels);
                    tuner.set(name, i, value[i] - h);
                    double minus = loss(tuner, ids, labels);
                    tuner.set(name, i, value[i]);
                    double numeric = (plus - minus) / (2 * h);
                    double got = analytic.get(name)[i];
                    assertEquals(numeric, got, 1e-6 * Math.max(1, Math.abs(numeric)), name + "[" + i + "]");
                    checked++;
                }
            }
            assertTrue(checked > 40);
            // an embedding row no text uses gets no gradient
            double[] words = analytic.get("embeddings.word_embeddings.weight");
            for (int j = 0; j < 8; j++) {
                assertEquals(0.0, words[15 * 8 + j]);
            }
        }
    }

    /** Below this a float64 gradient of the tiny encoder is the rounding noise of an exact 0. */
    private static final double ROUNDING_NOISE = 1e-10;

    @Test
    void adamWStepClipsAndSkipsDecayForBiasesAndLayerNorms() {
        TorchRuntime.FineTuneSpec spec = spec(3, true, 0.0);
        int[][] ids = {{1, 5, 7, 2}, {1, 2}, {1, 9, 3, 11, 4, 2}};
        int[] labels = {2, 0, 1};
        try (DjlFineTuner reference = new DjlFineTuner(Engine.getEngine("PyTorch"), tinyBert(), spec, DataType.FLOAT64);
             DjlFineTuner tuner = new DjlFineTuner(Engine.getEngine("PyTorch"), tinyBert(), spec, DataType.FLOAT64)) {
            Map<String, double[]> grads = new LinkedHashMap<>();
            Map<String, double[]> before = new LinkedHashMap<>();
            double squares = 0;
            try (NDScope scope = new NDScope()) {
                scope.suppressNotUsedWarning();
                reference.backward(ids, labels, false);
                for (String name : reference.names()) {
                    double[] g = reference.gradient64(name);
                    grads.put(name, g);
                    before.put(name, reference.parameter64(name));
                    for (double x : g) {
                        squares += x * x;
                    }
                }
            }
            double coefficient = spec.maxGradNorm() / (Math.sqrt(squares) + 1e-6);
            assertTrue(coefficient < 1, "the test's gradient norm must be clipped, coefficient " + coefficient);
            tuner.step(ids, labels);
            for (String name : tuner.names()) {
                boolean decays = !(name.endsWith(".bias") || name.contains("LayerNorm"));
                double[] p0 = before.get(name), g = grads.get(name), p1 = tuner.parameter64(name);
                for (int i = 0; i < p0.length; i++) {
                    double clipped = g[i] * coefficient;
                    double m = (1 - spec.beta1()) * clipped, v = (1 - spec.beta2()) * clipped * clipped;
                    double decayed = decays ? p0[i] * (1 - spec.stepSize() * spec.weightDecay()) : p0[i];
                    double expected = decayed - spec.stepSize() / (1 - spec.beta1())
                        * m / (Math.sqrt(v) / Math.sqrt(1 - spec.beta2()) + spec.epsilon());
                    // a gradient that is 0 but for rounding (the padding's embedding row: its keys are
                    // masked, its states not pooled) differs between two runs of MKL's products, and
                    // Adam's g / (|g| + eps) turns that noise into a move of up to lr
                    double tolerance = Math.abs(g[i]) < ROUNDING_NOISE ? spec.stepSize() : 1e-12;
                    assertEquals(expected, p1[i], tolerance, name + "[" + i + "]");
                }
            }
        }
    }

    private static double loss(DjlFineTuner tuner, int[][] ids, int[] labels) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            return tuner.backward(ids, labels, false);
        }
    }

    /** A small head for K classes over width 8; clipping at 0.05 so the tiny model's gradients are clipped. */
    private static TorchRuntime.FineTuneSpec spec(int classes, boolean cls, double dropout) {
        SplittableRandom random = new SplittableRandom(11);
        float[] w = new float[classes * 8];
        float[] b = new float[classes];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) random.nextDouble(-0.5, 0.5);
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) random.nextDouble(-0.1, 0.1);
        }
        return new TorchRuntime.FineTuneSpec(w, b, classes, cls, 1e-2, 0.1, 0.9, 0.999, 1e-8, dropout, 0.05);
    }

    /** Two layers, hidden 8, two heads, intermediate 12, 16 ids, 10 positions; seeded weights. */
    private static TorchRuntime.BertTensors tinyBert() {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        shapes.put("embeddings.word_embeddings.weight", new long[] {16, 8});
        shapes.put("embeddings.position_embeddings.weight", new long[] {10, 8});
        shapes.put("embeddings.token_type_embeddings.weight", new long[] {2, 8});
        shapes.put("embeddings.LayerNorm.weight", new long[] {8});
        shapes.put("embeddings.LayerNorm.bias", new long[] {8});
        for (int n = 0; n < 2; n++) {
            String l = "encoder.layer." + n + ".";
            for (String m : new String[] {"attention.self.query", "attention.self.key", "attention.self.value",
                "attention.output.dense"}) {
                shapes.put(l + m + ".weight", new long[] {8, 8});
                shapes.put(l + m + ".bias", new long[] {8});
            }
            shapes.put(l + "attention.output.LayerNorm.weight", new long[] {8});
            shapes.put(l + "attention.output.LayerNorm.bias", new long[] {8});
            shapes.put(l + "intermediate.dense.weight", new long[] {12, 8});
            shapes.put(l + "intermediate.dense.bias", new long[] {12});
            shapes.put(l + "output.dense.weight", new long[] {8, 12});
            shapes.put(l + "output.dense.bias", new long[] {8});
            shapes.put(l + "output.LayerNorm.weight", new long[] {8});
            shapes.put(l + "output.LayerNorm.bias", new long[] {8});
        }
        SplittableRandom random = new SplittableRandom(5);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            int size = (int) java.util.Arrays.stream(e.getValue()).reduce(1, (a, b) -> a * b);
            float[] t = new float[size];
            boolean norm = e.getKey().contains("LayerNorm.weight");
            for (int i = 0; i < size; i++) {
                t[i] = (float) (norm ? 1 + random.nextDouble(-0.2, 0.2) : random.nextDouble(-0.5, 0.5));
            }
            tensors.put(e.getKey(), t);
        }
        return new TorchRuntime.BertTensors(tensors, shapes, 2, 1e-12f);
    }
}
