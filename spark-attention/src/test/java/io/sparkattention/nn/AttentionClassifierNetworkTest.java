package io.sparkattention.nn;

import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The network's parameter layout, its PyTorch initialisation, argument checks and serialization. */
class AttentionClassifierNetworkTest {

    private static final int E = 8;
    private static final int K = 3;

    private final AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, false, true, Pooling.MEAN);

    @Test
    @DisplayName("the flat vector holds the state_dict's tensors in order, with their PyTorch shapes")
    void parameterLayout() {
        List<ParameterTensor> p = net.parameters();
        String[] names = {"attention.in_proj_weight", "attention.in_proj_bias", "attention.out_proj.weight",
            "attention.out_proj.bias", "classifier.weight", "classifier.bias"};
        int[][] shapes = {{3 * E, E}, {3 * E}, {E, E}, {E}, {K, E}, {K}};
        int offset = 0;
        for (int i = 0; i < names.length; i++) {
            assertEquals(names[i], p.get(i).name());
            assertArrayEquals(shapes[i], p.get(i).shape());
            assertEquals(offset, p.get(i).offset(), names[i]);
            assertEquals(p.get(i), net.parameter(names[i]));
            offset += p.get(i).size();
        }
        assertEquals(4 * E * E + 4 * E + K * E + K, net.parameterCount());
        assertEquals(offset, net.parameterCount());
        assertThrows(IllegalArgumentException.class, () -> net.parameter("attention.q_proj_weight"));
        assertMessage("ends before classifier.bias", () -> net.parameter("classifier.bias").slice(new float[10]));
    }

    @Test
    @DisplayName("initial weights follow PyTorch's distributions: xavier in_proj, ±1/√E linear weights, zero attention biases")
    void initialParametersFollowPyTorch() {
        float[] theta = net.initialParameters(42);
        assertBounded(theta, "attention.in_proj_weight", Math.sqrt(6.0 / (4 * E)));
        assertZero(theta, "attention.in_proj_bias");
        assertBounded(theta, "attention.out_proj.weight", 1 / Math.sqrt(E));
        assertZero(theta, "attention.out_proj.bias");
        assertBounded(theta, "classifier.weight", 1 / Math.sqrt(E));
        assertBounded(theta, "classifier.bias", 1 / Math.sqrt(E));
        MultiHeadAttentionWeights attention = MultiHeadAttentionInit.pytorchDefault(E, 2, E, E, true, 42);
        assertArrayEquals(attention.qWeight(), Arrays.copyOfRange(theta, 0, E * E));
        assertArrayEquals(attention.outWeight(), net.parameter("attention.out_proj.weight").slice(theta));
    }

    @Test
    @DisplayName("equal seeds give equal starting vectors, different seeds different ones")
    void initialParametersAreSeeded() {
        assertArrayEquals(net.initialParameters(3), net.initialParameters(3));
        assertFalse(Arrays.equals(net.initialParameters(3), net.initialParameters(4)));
    }

    @Test
    @DisplayName("attentionWeights cuts the attention's tensors out of the vector in PyTorch's layout")
    void attentionWeights() {
        float[] theta = new RandomTensors(5).normal(net.parameterCount(), 1);
        MultiHeadAttentionWeights w = net.attentionWeights(theta);
        int inB = net.parameter("attention.in_proj_bias").offset();
        assertArrayEquals(Arrays.copyOfRange(theta, E * E, 2 * E * E), w.kWeight());
        assertArrayEquals(Arrays.copyOfRange(theta, 2 * E * E, 3 * E * E), w.vWeight());
        assertArrayEquals(Arrays.copyOfRange(theta, inB + E, inB + 2 * E), w.kBias());
        assertArrayEquals(net.parameter("attention.out_proj.bias").slice(theta), w.outBias());
        assertEquals(2, w.numHeads());
    }

    @Test
    @DisplayName("the attention part, as a MultiHeadAttentionLayer, gives the classifier's logits through pooling and the head")
    void attentionWeightsDriveTheInferenceLayer() {
        AttentionClassifierNetwork causal = new AttentionClassifierNetwork(E, 2, K, true, true, Pooling.MEAN);
        RandomTensors random = new RandomTensors(13);
        float[] theta = random.normal(causal.parameterCount(), 0.3f);
        int n = 5;
        float[] x = random.normal(n * E, 1);
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(causal.attentionWeights(theta), causal.kernel());
        float[] a = layer.forward(x, x, x, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace()).values();
        double[] expected = new double[K];
        int clsW = causal.parameter("classifier.weight").offset(), clsB = causal.parameter("classifier.bias").offset();
        for (int c = 0; c < K; c++) {
            expected[c] = theta[clsB + c];
            for (int i = 0; i < E; i++) {
                double pooled = 0;
                for (int t = 0; t < n; t++) {
                    pooled += (x[t * E + i] + a[t * E + i]) / n;
                }
                expected[c] += theta[clsW + c * E + i] * pooled;
            }
        }
        float[] logits = new float[K];
        causal.bind(theta).logits(x, n, logits);
        ClassifierFixturesTest.assertRelative("logits", expected, ClassifierFixturesTest.toDouble(logits), 1e-6);
    }

    @Test
    @DisplayName("bad dimensions and parameter vectors are rejected, naming the parameter")
    void rejectsBadArguments() {
        assertMessage("numHeads (3) must divide embedDim (8)",
            () -> new AttentionClassifierNetwork(8, 3, 2, false, true, Pooling.MEAN));
        assertMessage("embedDim", () -> new AttentionClassifierNetwork(0, 1, 2, false, true, Pooling.MEAN));
        assertMessage("numClasses", () -> new AttentionClassifierNetwork(8, 2, 0, false, true, Pooling.MEAN));
        assertThrows(NullPointerException.class, () -> new AttentionClassifierNetwork(8, 2, 2, false, true, null));
        assertMessage("parameter vector has 10 values, expected " + net.parameterCount(), () -> net.bind(new float[10]));
    }

    @Test
    @DisplayName("bind copies the vector: changing it afterwards does not change the bound step")
    void bindCopies() {
        float[] theta = net.initialParameters(1);
        float[] x = new RandomTensors(2).normal(4 * E, 1);
        ClassifierEvaluator step = net.bind(theta);
        float[] before = new float[K], after = new float[K];
        step.logits(x, 4, before);
        Arrays.fill(theta, 0f);
        step.logits(x, 4, after);
        assertArrayEquals(before, after);
    }

    @Test
    @DisplayName("a serialized network (as Spark ships it) computes the same logits bit for bit")
    void serializationKeepsTheNumbers() throws IOException, ClassNotFoundException {
        AttentionClassifierNetwork causal = new AttentionClassifierNetwork(E, 4, K, true, false, Pooling.LAST);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(causal);
        }
        AttentionClassifierNetwork copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (AttentionClassifierNetwork) in.readObject();
        }
        assertEquals(causal.toString(), copy.toString());
        float[] theta = causal.initialParameters(9);
        float[] x = new RandomTensors(10).normal(6 * E, 1);
        float[] a = new float[K], b = new float[K];
        causal.bind(theta).logits(x, 6, a);
        copy.bind(theta).logits(x, 6, b);
        assertArrayEquals(a, b);
    }

    private void assertBounded(float[] theta, String name, double bound) {
        float[] values = net.parameter(name).slice(theta);
        double max = 0;
        for (float v : values) {
            max = Math.max(max, Math.abs(v));
        }
        assertTrue(max <= bound, name + ": " + max + " exceeds ±" + bound);
        if (values.length >= 24) {  // enough draws to come near the edge of the interval
            assertTrue(max >= 0.7 * bound, name + ": " + max + " is far inside ±" + bound);
        } else {
            assertTrue(max > 0, name + " is all zero");
        }
    }

    private void assertZero(float[] theta, String name) {
        assertArrayEquals(new float[net.parameter(name).size()], net.parameter(name).slice(theta), name);
    }

    private static void assertMessage(String fragment, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }
}
