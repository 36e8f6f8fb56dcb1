package io.sparkattention.nn;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What one row contributes: ragged rows, reused buffers, row weights, causality and bad input. */
class ClassifierEvaluatorTest {

    private static final int E = 8;
    private static final int K = 3;

    @Test
    @DisplayName("values past a row's length are never read: trailing NaN changes neither loss nor gradient")
    void valuesPastTheLengthAreNotRead() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, false, true, Pooling.LAST);
        float[] theta = net.initialParameters(1);
        float[] x = new RandomTensors(2).normal(5 * E, 1);
        float[] padded = Arrays.copyOf(x, 9 * E);
        Arrays.fill(padded, 5 * E, padded.length, Float.NaN);
        double[] g1 = new double[net.parameterCount()], g2 = new double[net.parameterCount()];
        double l1 = net.bind(theta).accumulate(x, 5, 1, 1.0, g1);
        double l2 = net.bind(theta).accumulate(padded, 5, 1, 1.0, g2);
        assertEquals(l1, l2);
        assertArrayEquals(g1, g2);
    }

    @Test
    @DisplayName("one step over rows of changing lengths gives, bit for bit, what a fresh step gives per row")
    void reusedBuffersGiveFreshResults() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 4, K, true, true, Pooling.MEAN);
        float[] theta = net.initialParameters(3);
        RandomTensors random = new RandomTensors(4);
        ClassifierEvaluator reused = net.bind(theta);
        for (int n : new int[] {5, 3, 5, 7, 1, 7}) {
            float[] x = random.normal(n * E, 1);
            double[] g1 = new double[net.parameterCount()], g2 = new double[net.parameterCount()];
            assertEquals(net.bind(theta).accumulate(x, n, n % K, 1.0, g1), reused.accumulate(x, n, n % K, 1.0, g2));
            assertArrayEquals(g1, g2, "row of length " + n);
        }
    }

    @Test
    @DisplayName("a row's weight scales its loss and gradient; weight 0 adds nothing; gradients add up across calls")
    void rowWeights() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, false, false, Pooling.FIRST);
        ClassifierEvaluator step = net.bind(net.initialParameters(5));
        float[] x = new RandomTensors(6).normal(4 * E, 1);
        double[] one = new double[net.parameterCount()], weighted = new double[net.parameterCount()];
        double loss = step.accumulate(x, 4, 2, 1.0, one);
        assertEquals(2.5 * loss, step.accumulate(x, 4, 2, 2.5, weighted), 1e-12);
        double[] scaled = new double[one.length];
        for (int i = 0; i < one.length; i++) {
            scaled[i] = 2.5 * one[i];
        }
        ClassifierFixturesTest.assertRelative("weighted gradient", scaled, weighted, 1e-5);
        double[] copy = weighted.clone();
        assertEquals(0.0, step.accumulate(x, 4, 2, 0.0, weighted));
        assertArrayEquals(copy, weighted);
        step.accumulate(x, 4, 2, 2.5, weighted);
        for (int i = 0; i < one.length; i++) {
            assertEquals(2 * copy[i], weighted[i], 1e-12 + 1e-6 * Math.abs(copy[i]), "parameter " + i);
        }
    }

    @Test
    @DisplayName("causal attention with first-token pooling: later tokens change neither logits nor gradient")
    void causalFirstTokenSeesOnlyItself() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, true, true, Pooling.FIRST);
        ClassifierEvaluator step = net.bind(net.initialParameters(7));
        RandomTensors random = new RandomTensors(8);
        float[] x = random.normal(6 * E, 1);
        float[] y = x.clone();
        float[] other = random.normal(5 * E, 3);
        System.arraycopy(other, 0, y, E, other.length);
        float[] a = new float[K], b = new float[K];
        step.logits(x, 6, a);
        step.logits(y, 6, b);
        assertArrayEquals(a, b);
        double[] ga = new double[net.parameterCount()], gb = new double[net.parameterCount()];
        step.accumulate(x, 6, 0, 1.0, ga);
        step.accumulate(y, 6, 0, 1.0, gb);
        assertArrayEquals(ga, gb);
    }

    @Test
    @DisplayName("logits are the ones the loss is computed from: CE = logsumexp(z) − z_label")
    void logitsAndLossAgree() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 1, K, false, true, Pooling.MEAN);
        ClassifierEvaluator step = net.bind(net.initialParameters(11));
        float[] x = new RandomTensors(12).normal(3 * E, 1);
        float[] z = new float[K];
        step.logits(x, 3, z);
        double loss = step.accumulate(x, 3, 1, 1.0, new double[net.parameterCount()]);
        assertEquals(Softmax.logSumExp(z, K) - z[1], loss, 1e-12);
    }

    @Test
    @DisplayName("bad rows are rejected, naming the label, weight, length, features or gradient")
    void rejectsBadInput() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, false, true, Pooling.MEAN);
        ClassifierEvaluator step = net.bind(net.initialParameters(1));
        float[] x = new float[2 * E];
        double[] g = new double[net.parameterCount()];
        assertMessage("label 3 is not a class in [0, 3)", () -> step.accumulate(x, 2, 3, 1.0, g));
        assertMessage("label -1", () -> step.accumulate(x, 2, -1, 1.0, g));
        assertMessage("row weight", () -> step.accumulate(x, 2, 0, Double.NaN, g));
        assertMessage("row weight", () -> step.accumulate(x, 2, 0, -1.0, g));
        assertMessage("row weight", () -> step.accumulate(x, 2, 0, Double.POSITIVE_INFINITY, g));
        assertMessage("at least one token", () -> step.accumulate(x, 0, 0, 1.0, g));
        assertMessage("fewer than 3 tokens", () -> step.accumulate(x, 3, 0, 1.0, g));
        assertMessage("gradient has 5 values", () -> step.accumulate(x, 2, 0, 1.0, new double[5]));
        assertMessage("logits array has 2 values", () -> step.logits(x, 2, new float[2]));
    }

    private static void assertMessage(String fragment, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    @DisplayName("a row's gradient does not depend on the rows before it: one evaluator over many rows adds what "
        + "fresh evaluators add row by row, bit for bit")
    void rowsAreIndependent() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(E, 2, K, false, true, Pooling.MEAN);
        float[] theta = net.initialParameters(13);
        RandomTensors random = new RandomTensors(14);
        ClassifierEvaluator shared = net.bind(theta);
        for (int r = 0; r < 20; r++) {
            float[] x = random.normal((1 + r % 6) * E, 1);
            double[] fresh = new double[net.parameterCount()], reused = new double[net.parameterCount()];
            assertEquals(net.bind(theta).accumulate(x, 1 + r % 6, r % K, 1.0, fresh),
                shared.accumulate(x, 1 + r % 6, r % K, 1.0, reused));
            assertArrayEquals(fresh, reused, "row " + r);
        }
    }

    @Test
    @DisplayName("training's attention forward is inference's: the same bits as MultiHeadAttentionLayer on the same "
        + "weights, on each projection kernel")
    void trainingForwardIsTheLayers() {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(40, 4, K, true, true, Pooling.MEAN);
        float[] theta = net.initialParameters(17);
        float[] x = new RandomTensors(18).normal(9 * 40, 1);
        for (String name : new String[] {"vector", "blas"}) {
            io.sparkattention.kernel.LinearKernel kernel;
            try {
                kernel = io.sparkattention.kernel.LinearKernel.named(name);
            } catch (IllegalStateException noVectorApi) {
                continue;
            }
            TrainableSelfAttention training = new TrainableSelfAttention(net, theta, kernel);
            float[] a = new float[9 * 40];
            training.forward(x, 9, a);
            MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(net.attentionWeights(theta), net.kernel(), kernel);
            assertArrayEquals(layer.forward(x, x, x, io.sparkattention.kernel.RowMask.NONE, AttentionWeightsMode.NONE,
                new io.sparkattention.kernel.Workspace()).values(), a, name);
        }
    }
}
