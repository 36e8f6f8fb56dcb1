package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Softmax cross-entropy through the log-sum-exp. */
class SoftmaxCrossEntropyTest {

    @Test
    @DisplayName("equal logits: CE = log K and the gradient is 1/K − onehot, times the weight")
    void equalLogits() {
        float[] dz = new float[4];
        double loss = SoftmaxCrossEntropy.lossAndGradient(new float[] {0.3f, 0.3f, 0.3f, 0.3f}, 4, 2, 2.0, dz);
        assertEquals(Math.log(4), loss, 1e-12);
        assertArrayEquals(new float[] {0.5f, 0.5f, -1.5f, 0.5f}, dz, 1e-7f);
    }

    @Test
    @DisplayName("logits of ±1000 neither overflow nor lose the loss: CE = 2000 for the far class, 0 for the near one")
    void largeLogitsAreStable() {
        float[] z = {1000f, -1000f};
        float[] dz = new float[2];
        assertEquals(2000.0, SoftmaxCrossEntropy.lossAndGradient(z, 2, 1, 1.0, dz), 1e-9);
        assertArrayEquals(new float[] {1f, -1f}, dz);
        assertEquals(0.0, SoftmaxCrossEntropy.lossAndGradient(z, 2, 0, 1.0, dz), 1e-12);
        assertArrayEquals(new float[] {0f, 0f}, dz);
    }
}
