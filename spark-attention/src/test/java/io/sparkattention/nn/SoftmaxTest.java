package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Softmax, its cross-entropy and gradient through the log-sum-exp. */
class SoftmaxTest {

    @Test
    @DisplayName("equal logits: CE = log K and the gradient is 1/K − onehot, times the weight")
    void equalLogits() {
        float[] dz = new float[4];
        double loss = Softmax.lossAndGradient(new float[] {0.3f, 0.3f, 0.3f, 0.3f}, 4, 2, 2.0, dz);
        assertEquals(Math.log(4), loss, 1e-12);
        assertArrayEquals(new float[] {0.5f, 0.5f, -1.5f, 0.5f}, dz, 1e-7f);
    }

    @Test
    @DisplayName("logits of ±1000 neither overflow nor lose the loss: CE = 2000 for the far class, 0 for the near one")
    void largeLogitsAreStable() {
        float[] z = {1000f, -1000f};
        float[] dz = new float[2];
        assertEquals(2000.0, Softmax.lossAndGradient(z, 2, 1, 1.0, dz), 1e-9);
        assertArrayEquals(new float[] {1f, -1f}, dz);
        assertEquals(0.0, Softmax.lossAndGradient(z, 2, 0, 1.0, dz), 1e-12);
        assertArrayEquals(new float[] {0f, 0f}, dz);
    }

    @Test
    @DisplayName("probabilities of ±1000 logits are finite and sum to one; the cross-entropy agrees with the loss")
    void probabilitiesAndCrossEntropy() {
        double[] p = {1000, -1000, 999};
        Softmax.softmaxInPlace(p);
        assertArrayEquals(new double[] {1 / (1 + Math.exp(-1)), 0, Math.exp(-1) / (1 + Math.exp(-1))}, p, 1e-12);
        float[] z = {0.5f, -2f, 3f};
        assertEquals(Softmax.lossAndGradient(z, 3, 1, 1.0, new float[3]), Softmax.crossEntropy(z, 1));
        assertEquals(Math.log(Math.exp(0.5) + Math.exp(-2) + Math.exp(3)) + 2, Softmax.crossEntropy(z, 1), 1e-12);
    }
}
