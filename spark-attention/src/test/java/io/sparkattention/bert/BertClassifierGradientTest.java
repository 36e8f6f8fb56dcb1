package io.sparkattention.bert;

import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Pooling;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every block's backward (embeddings' scatter-add, LayerNorm, exact-erf GELU, the projections,
 * the fused-QKV attention with and without dropout on its probabilities, pooling, the head with
 * weighted cross-entropy), through {@link BertClassifierEvaluator#accumulate}, against central
 * finite differences of a float64 reference ({@link Float64BertClassifier}) with the same dropout
 * masks, on seeded random encoders of odd sizes: L = 1, L not a multiple of anything, L past the
 * direct attention path (tiled), large logits, every trainable setting.
 */
class BertClassifierGradientTest {

    static Stream<Arguments> cases() {
        return Stream.of(
            // name, layers, E, H, F, L, trainable, pooling, dropout, weight, head scale
            Arguments.of("all, mean, no dropout", 2, 12, 3, 20, 7, -1, Pooling.MEAN, 0.0, 1.0, 1.0),
            Arguments.of("all, cls, dropout 0.3", 2, 12, 3, 20, 9, -1, Pooling.FIRST, 0.3, 1.0, 1.0),
            Arguments.of("top 1, mean, dropout 0.2, weight 1.7", 2, 12, 4, 16, 33, 1, Pooling.MEAN, 0.2, 1.7, 1.0),
            Arguments.of("head only, cls", 2, 12, 3, 20, 5, 0, Pooling.FIRST, 0.1, 1.0, 1.0),
            Arguments.of("L = 1, all, dropout 0.3", 1, 10, 5, 14, 1, -1, Pooling.MEAN, 0.3, 1.0, 1.0),
            Arguments.of("large logits", 1, 12, 3, 20, 4, -1, Pooling.MEAN, 0.0, 1.0, 40.0),
            Arguments.of("top 2 of 3, E 10 H 5, L 2", 3, 10, 5, 18, 2, 2, Pooling.FIRST, 0.0, 0.6, 1.0),
            Arguments.of("L 131 (tiled attention), top 1", 1, 8, 2, 12, 131, 1, Pooling.MEAN, 0.0, 1.0, 1.0),
            Arguments.of("L 131 with dropout, top 1", 1, 8, 2, 12, 131, 1, Pooling.MEAN, 0.25, 1.0, 1.0));
    }

    static BertWeights randomEncoder(int layers, int E, int H, int F, int V, int P, long seed) {
        BertConfig c = new BertConfig(layers, E, H, F, P, V, 2, 1e-12f);
        RandomTensors rnd = new RandomTensors(seed);
        Map<String, float[]> t = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(c).entrySet()) {
            long size = 1;
            for (long s : e.getValue()) {
                size *= s;
            }
            String n = e.getKey();
            double scale = n.contains("embeddings") ? 0.4 : n.endsWith("bias") ? 0.05 : 1 / Math.sqrt(E);
            float[] v = rnd.normal((int) size, scale);
            if (n.endsWith("LayerNorm.weight")) {
                for (int i = 0; i < v.length; i++) {
                    v[i] = 1 + 0.1f * v[i];
                }
            }
            t.put(n, v);
        }
        return new BertWeights(c, t);
    }

    static int[] randomIds(int L, int V, long seed) {
        Random r = new Random(seed);
        int[] ids = new int[L];
        for (int i = 0; i < L; i++) {
            ids[i] = r.nextInt(V);
        }
        if (L > 2) {
            ids[L - 1] = ids[1];  // a repeated id: its word row gets two tokens' gradients
        }
        return ids;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void gradientsMatchFiniteDifferencesOfFloat64(String name, int layers, int E, int H, int F, int L, int trainable,
                                                  Pooling pooling, double dropout, double weight, double headScale) {
        int V = 40, K = 3;
        BertWeights enc = randomEncoder(layers, E, H, F, V, Math.max(L, 8) + 3, L * 31L + E);
        RandomTensors rnd = new RandomTensors(5);
        float[] headW = rnd.normal(K * E, headScale / Math.sqrt(E));
        float[] headB = rnd.normal(K, 0.1);
        BertClassifierNetwork net = new BertClassifierNetwork(enc, headW, headB,
            new BertClassifierSettings(trainable, pooling, dropout));
        float[] theta = net.initialParameters();
        int[] ids = randomIds(L, V, L);
        int label = L % K;
        long seed = 11, step = 3, rowKey = 42;
        double[] grad = new double[net.parameterCount()];
        double loss = net.bind(theta, seed, step).accumulate(ids, null, rowKey, label, weight, grad);

        Float64BertClassifier ref = new Float64BertClassifier(enc.config(), net.stateDict(theta), pooling);
        int first = net.embeddingsTrainable() ? -1 : net.firstTrainableLayer();
        double exact = ref.loss(ids, label, weight, dropout, first, seed, step, rowKey);
        assertEquals(exact, loss, 2e-5 * Math.abs(exact), name + ": loss");

        Random pick = new Random(L);
        double global = 0;
        for (double g : grad) {
            global = Math.max(global, Math.abs(g));
        }
        for (ParameterTensor t : net.parameters()) {
            double[] values = ref.p.get(t.name());
            double scale = 0;
            for (int i = 0; i < t.size(); i++) {
                scale = Math.max(scale, Math.abs(grad[t.offset() + i]));
            }
            if (t.name().endsWith("attention.self.key.bias")) {
                scale = Math.max(scale, 1e-2 * global);  // true gradient 0: float noise on the layer's scale
            }
            for (int s = 0; s < 6; s++) {
                int i = coordinate(t, ids, E, pick);
                double keep = values[i], h = 1e-5 * Math.max(1, Math.abs(keep));
                values[i] = keep + h;
                double up = ref.loss(ids, label, weight, dropout, first, seed, step, rowKey);
                values[i] = keep - h;
                double down = ref.loss(ids, label, weight, dropout, first, seed, step, rowKey);
                values[i] = keep;
                double fd = (up - down) / (2 * h);
                double got = grad[t.offset() + i];
                assertTrue(Math.abs(got - fd) <= 2e-3 * Math.max(scale, Math.abs(fd)) + 1e-7,
                    name + ": " + t.name() + "[" + i + "] = " + got + ", finite differences " + fd + " (tensor scale "
                        + scale + ")");
            }
        }
    }

    /** A coordinate of t whose gradient can be non-zero: for the embeddings, rows the row uses. */
    private static int coordinate(ParameterTensor t, int[] ids, int E, Random pick) {
        String n = t.name();
        if (n.equals(BertWeights.WORD_EMBEDDINGS)) {
            return ids[pick.nextInt(ids.length)] * E + pick.nextInt(E);
        }
        if (n.equals(BertWeights.POSITION_EMBEDDINGS)) {
            return pick.nextInt(ids.length) * E + pick.nextInt(E);
        }
        if (n.equals(BertWeights.TOKEN_TYPE_EMBEDDINGS)) {
            return pick.nextInt(E);
        }
        return pick.nextInt(t.size());
    }

    @Test
    void cachedFrozenStatesGiveTheSameBitsAsComputingThem() {
        BertWeights enc = randomEncoder(3, 16, 4, 24, 50, 40, 3);
        RandomTensors rnd = new RandomTensors(9);
        BertClassifierNetwork net = new BertClassifierNetwork(enc, rnd.normal(2 * 16, 0.3), rnd.normal(2, 0.1),
            new BertClassifierSettings(1, Pooling.MEAN, 0.1));
        float[] theta = net.initialParameters();
        int[] ids = randomIds(21, 50, 4);
        double[] computed = new double[net.parameterCount()];
        double[] cached = new double[net.parameterCount()];
        BertClassifierEvaluator ev = net.bind(theta, 5, 2);
        double a = ev.accumulate(ids, null, 8, 1, 1.0, computed);
        double b = net.bind(theta, 5, 2).accumulate(ids, net.frozenStates(ids), 8, 1, 1.0, cached);
        assertEquals(a, b);
        assertArrayEquals(computed, cached);
        double[] again = new double[net.parameterCount()];
        ev.accumulate(ids, null, 8, 1, 1.0, again);
        assertArrayEquals(computed, again, "an evaluator reused for the same row gives the same bits");
    }

    @Test
    void rowsAddedThenFlushedOnceSumTheirGradientsLikeRowByRowAndDiscardDropsThem() {
        BertWeights enc = randomEncoder(2, 12, 3, 20, 40, 30, 4);
        RandomTensors rnd = new RandomTensors(5);
        BertClassifierNetwork net = new BertClassifierNetwork(enc, rnd.normal(3 * 12, 0.3), rnd.normal(3, 0.1),
            new BertClassifierSettings(-1, Pooling.MEAN, 0.2));
        float[] theta = net.initialParameters();
        int[][] rows = {randomIds(7, 40, 1), randomIds(13, 40, 2), randomIds(1, 40, 3), randomIds(21, 40, 4)};
        double[] rowByRow = new double[net.parameterCount()];
        double[] pending = new double[net.parameterCount()];
        BertClassifierEvaluator each = net.bind(theta, 3, 1);
        BertClassifierEvaluator batched = net.bind(theta, 3, 1);
        double lossEach = 0, lossBatched = 0;
        for (int r = 0; r < rows.length; r++) {
            lossEach += each.accumulate(rows[r], null, r, r % 3, 0.5 + r, rowByRow);
            lossBatched += batched.add(rows[r], null, r, r % 3, 0.5 + r);
        }
        batched.flushInto(pending);
        assertEquals(lossEach, lossBatched, "the losses are the rows' own");
        double scale = Arrays.stream(rowByRow).map(Math::abs).max().orElse(0);
        for (int i = 0; i < pending.length; i++) {
            assertEquals(rowByRow[i], pending[i], 1e-6 * scale, "parameter " + i + ": every pending row, word rows too");
        }
        double[] empty = new double[net.parameterCount()];
        batched.flushInto(empty);
        assertTrue(Arrays.stream(empty).allMatch(g -> g == 0), "a flush clears what it flushed");
        batched.add(rows[0], null, 0, 0, 1.0);
        batched.discardPending();
        batched.flushInto(empty);
        assertTrue(Arrays.stream(empty).allMatch(g -> g == 0), "discarded rows never reach the sums");
        double[] one = new double[net.parameterCount()];
        double[] alone = new double[net.parameterCount()];
        batched.add(rows[1], null, 1, 1, 1.5);
        batched.flushInto(one);
        net.bind(theta, 3, 1).accumulate(rows[1], null, 1, 1, 1.5, alone);
        assertArrayEquals(alone, one, "one pending row flushes the bits accumulate adds");
    }

    @Test
    void dropoutDependsOnStepAndRowKeyOnlyAndEvalHasNone() {
        BertWeights enc = randomEncoder(2, 12, 3, 20, 40, 20, 6);
        RandomTensors rnd = new RandomTensors(2);
        BertClassifierNetwork net = new BertClassifierNetwork(enc, rnd.normal(36, 0.3), rnd.normal(3, 0.1),
            new BertClassifierSettings(-1, Pooling.MEAN, 0.2));
        BertClassifierNetwork off = new BertClassifierNetwork(enc, rnd.normal(36, 0.3), rnd.normal(3, 0.1),
            new BertClassifierSettings(-1, Pooling.MEAN, 0.0));
        float[] theta = net.initialParameters();
        int[] ids = randomIds(11, 40, 1);
        double base = net.bind(theta, 1, 0).accumulate(ids, null, 7, 0, 1.0, new double[net.parameterCount()]);
        assertEquals(base, net.bind(theta, 1, 0).accumulate(ids, null, 7, 0, 1.0, new double[net.parameterCount()]));
        assertFalse(base == net.bind(theta, 1, 1).accumulate(ids, null, 7, 0, 1.0, new double[net.parameterCount()]));
        assertFalse(base == net.bind(theta, 1, 0).accumulate(ids, null, 8, 0, 1.0, new double[net.parameterCount()]));
        assertFalse(base == net.bind(theta, 2, 0).accumulate(ids, null, 7, 0, 1.0, new double[net.parameterCount()]));
        float[] evalLogits = new float[3], trainLogits = new float[3];
        net.bind(theta).logits(ids, null, evalLogits);
        net.bind(theta, 1, 0).logits(ids, null, trainLogits);
        assertArrayEquals(evalLogits, trainLogits, "logits never drop");
        float[] offTheta = off.initialParameters();
        assertEquals(off.bind(offTheta).accumulate(ids, null, 7, 0, 1.0, new double[off.parameterCount()]),
            off.bind(offTheta, 1, 0).accumulate(ids, null, 7, 0, 1.0, new double[off.parameterCount()]),
            "p = 0 trains as eval");
        float[] other = new float[3];
        net.bind(theta, 1, 5).logits(ids, null, other);
        assertArrayEquals(evalLogits, other, "whatever the step");
    }

    @Test
    void logitsAreTheInferenceEncodersPooledStatesThroughTheHead() {
        BertWeights enc = randomEncoder(3, 16, 4, 24, 50, 160, 12);
        RandomTensors rnd = new RandomTensors(6);
        float[] w = rnd.normal(3 * 16, 0.3), b = rnd.normal(3, 0.1);
        for (int trainable : new int[] {-1, 0, 2}) {
            for (Pooling pooling : new Pooling[] {Pooling.MEAN, Pooling.FIRST}) {
                BertClassifierNetwork net = new BertClassifierNetwork(enc, w, b,
                    new BertClassifierSettings(trainable, pooling, 0.1));
                BertClassifierEvaluator ev = net.bind(net.initialParameters(), 1, 1);
                for (int L : new int[] {1, 17, 150}) {
                    int[] ids = randomIds(L, 50, L);
                    float[] pooled = pooling.embed(new BertEncoder(enc).forward(ids), L, 16, false);
                    float[] logits = new float[3];
                    ev.logits(ids, null, logits);
                    for (int k = 0; k < 3; k++) {
                        double z = b[k];
                        for (int j = 0; j < 16; j++) {
                            z += (double) w[k * 16 + j] * pooled[j];
                        }
                        assertEquals(z, logits[k], 1e-5 * Math.max(1, Math.abs(z)),
                            "trainable " + trainable + ", " + pooling + ", L " + L + ", class " + k);
                    }
                }
            }
        }
    }

    @Test
    void aSerializedNetworkGivesTheSameBits() throws Exception {
        BertWeights enc = randomEncoder(2, 12, 3, 20, 40, 20, 8);
        RandomTensors rnd = new RandomTensors(4);
        BertClassifierNetwork net = new BertClassifierNetwork(enc, rnd.normal(24, 0.3), rnd.normal(2, 0.1),
            new BertClassifierSettings(1, Pooling.FIRST, 0.1));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(net);
        }
        BertClassifierNetwork copy;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (BertClassifierNetwork) in.readObject();
        }
        int[] ids = randomIds(13, 40, 2);
        float[] theta = net.initialParameters();
        assertArrayEquals(theta, copy.initialParameters());
        double[] a = new double[net.parameterCount()], b = new double[copy.parameterCount()];
        assertEquals(net.bind(theta, 3, 1).accumulate(ids, net.frozenStates(ids), 5, 1, 1.0, a),
            copy.bind(theta, 3, 1).accumulate(ids, copy.frozenStates(ids), 5, 1, 1.0, b));
        assertArrayEquals(a, b);
    }

    @Test
    void stackedFrozenStatesHaveEachRowsBitsAlone() throws IOException {
        BertWeights enc = randomEncoder(3, 12, 3, 20, 40, 70, 9);
        float[] w = new float[2 * 12], b = new float[2];
        for (int trainable : new int[] {0, 1, 3}) {
            BertClassifierNetwork net = new BertClassifierNetwork(enc, w, b,
                new BertClassifierSettings(trainable, Pooling.MEAN, 0));
            int[][] rows = {randomIds(5, 40, 1), randomIds(1, 40, 2), randomIds(70, 40, 3), randomIds(33, 40, 4)};
            float[][] together = net.frozenStates(rows);
            assertEquals(rows.length, together.length);
            for (int r = 0; r < rows.length; r++) {
                assertArrayEquals(net.frozenStates(rows[r]), together[r], "trainable " + trainable + ", row " + r);
            }
            assertEquals(0, net.frozenStates(new int[0][]).length);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> net.frozenStates(new int[][] {{1, 2}, {3, 40}}));
            assertTrue(e.getMessage().contains("row 1 of the batch") && e.getMessage().contains("position 1"),
                e.getMessage());
        }
        BertClassifierNetwork all = new BertClassifierNetwork(enc, w, b, new BertClassifierSettings(-1, Pooling.MEAN, 0));
        assertThrows(IllegalStateException.class, () -> all.frozenStates(new int[][] {{1}}));
        BertEncoder minilm = io.sparkattention.io.BundledModels.encoder("all-minilm-l6-v2");
        BertClassifierNetwork mini = new BertClassifierNetwork(minilm.weights(), new float[2 * 384], new float[2],
            new BertClassifierSettings(2, Pooling.MEAN, 0));
        int[][] texts = {randomIds(23, 1000, 5), randomIds(130, 1000, 6), randomIds(2, 1000, 7)};
        float[][] states = mini.frozenStates(texts);
        for (int r = 0; r < texts.length; r++) {
            assertArrayEquals(mini.frozenStates(texts[r]), states[r], "MiniLM row " + r);
        }
    }

    @Test
    void theNetworkChecksItsArguments() {
        BertWeights enc = randomEncoder(2, 8, 2, 12, 20, 10, 1);
        float[] w = new float[3 * 8], b = new float[3];
        assertThrows(IllegalArgumentException.class,
            () -> new BertClassifierNetwork(enc, w, b, new BertClassifierSettings(3, Pooling.MEAN, 0)));
        assertThrows(IllegalArgumentException.class,
            () -> new BertClassifierNetwork(enc, new float[7], b, new BertClassifierSettings(1, Pooling.MEAN, 0)));
        assertThrows(IllegalArgumentException.class, () -> new BertClassifierSettings(-2, Pooling.MEAN, 0));
        assertThrows(IllegalArgumentException.class, () -> new BertClassifierSettings(0, Pooling.MAX, 0));
        assertThrows(IllegalArgumentException.class, () -> new BertClassifierSettings(0, Pooling.MEAN, 1.0));
        BertClassifierNetwork net = new BertClassifierNetwork(enc, w, b, new BertClassifierSettings(1, Pooling.MEAN, 0));
        BertClassifierEvaluator ev = net.bind(net.initialParameters());
        double[] g = new double[net.parameterCount()];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ev.accumulate(new int[] {1, 20}, null, 0, 0, 1, g));
        assertTrue(e.getMessage().contains("position 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[11], null, 0, 0, 1, g));
        assertTrue(e.getMessage().contains("10 positions"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[0], null, 0, 0, 1, g));
        assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[] {1}, null, 0, 3, 1, g));
        assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[] {1}, null, 0, 0, -1, g));
        assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[] {1}, new float[7], 0, 0, 1, g));
        assertThrows(IllegalArgumentException.class, () -> ev.accumulate(new int[] {1}, null, 0, 0, 1, new double[3]));
        assertEquals(0.0, ev.accumulate(new int[] {1}, null, 0, 0, 0, g), "a zero weight adds nothing");
        BertClassifierNetwork all = new BertClassifierNetwork(enc, w, b, new BertClassifierSettings(-1, Pooling.MEAN, 0));
        assertThrows(IllegalStateException.class, () -> all.frozenStates(new int[] {1}));
        assertThrows(IllegalArgumentException.class, () -> all.bind(new float[3]));
    }

    @Test
    void theFlatVectorIsInHuggingFaceOrderWithItsDecayGroups() {
        BertWeights enc = randomEncoder(2, 8, 2, 12, 20, 10, 1);
        BertClassifierNetwork top = new BertClassifierNetwork(enc, new float[16], new float[2],
            new BertClassifierSettings(1, Pooling.MEAN, 0));
        assertEquals("encoder.layer.1.attention.self.query.weight", top.parameters().get(0).name());
        assertEquals(BertClassifierNetwork.CLASSIFIER_BIAS, top.parameters().get(top.parameters().size() - 1).name());
        assertEquals(16 + 2, top.parameters().size());
        int expected = 0;
        for (ParameterTensor t : top.parameters()) {
            assertEquals(expected, t.offset(), t.name());
            expected += t.size();
            assertEquals(!(t.name().endsWith("bias") || t.name().contains("LayerNorm")), t.decayed(), t.name());
        }
        assertEquals(expected, top.parameterCount());
        BertClassifierNetwork all = new BertClassifierNetwork(enc, new float[16], new float[2],
            new BertClassifierSettings(-1, Pooling.MEAN, 0));
        assertEquals(BertWeights.WORD_EMBEDDINGS, all.parameters().get(0).name());
        float[] theta = all.initialParameters();
        theta[all.parameter("encoder.layer.0.output.dense.bias").offset()] = 42f;
        BertWeights back = all.encoderWeights(theta);
        assertEquals(42f, back.tensor("encoder.layer.0.output.dense.bias")[0]);
        assertNotEquals(42f, enc.tensor("encoder.layer.0.output.dense.bias")[0], "the start is not changed");
        assertEquals(enc.tensors().size() + 2, all.stateDict(theta).size());
    }
}
