package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Hugging Face's fine-tuning pieces: AdamW's decay groups, the linear warmup schedule, clip_grad_norm_. */
class FineTuneOptimisationTest {

    @Test
    @DisplayName("AdamW decays the decayed tensors only; the others step as Adam")
    void adamWDecayGroups() {
        List<ParameterTensor> layout = List.of(ParameterTensor.of("dense.weight", 0, 2),
            ParameterTensor.of("dense.bias", 2, 1), ParameterTensor.of("LayerNorm.weight", 3, 1));
        float[] theta = {1f, -0.5f, 1f, 1f};
        double[] g = {0.5, -0.1, 0.5, 0.5};
        Optimizer.adamW(0.1, 0.5, layout).step(theta, g);
        // decayed: θ·(1 − 0.05) − 0.1·sign(g); the bias and the LayerNorm weight: θ − 0.1·sign(g)
        assertArrayEquals(new float[] {0.85f, -0.375f, 0.9f, 0.9f}, theta, 1e-6f);
        float[] plain = {1f, -0.5f, 1f, 1f};
        Optimizer.adam(0.1, 0.9, 0.999, 1e-8, 0).step(plain, g);
        assertEquals(plain[2], theta[2]);
        assertThrows(IllegalArgumentException.class, () -> Optimizer.adamW(0.1, 0.5,
            List.of(ParameterTensor.of("a", 0, 2), ParameterTensor.of("b", 3, 1))), "a gap in the layout");
        assertThrows(IllegalArgumentException.class,
            () -> Optimizer.adamW(0.1, 0.5, layout).step(new float[5], new double[5]), "a layout of another length");
    }

    @Test
    @DisplayName("a schedule factor scales the step and the decay; factor 0 still advances the moments")
    void scheduleFactor() {
        List<ParameterTensor> layout = List.of(ParameterTensor.of("w", 0, 1));
        Optimizer a = Optimizer.adamW(0.1, 0.5, layout);
        float[] theta = {1f};
        a.step(theta, new double[] {0.5}, 0.0);
        assertEquals(1f, theta[0], "lr 0 leaves θ as it is");
        assertEquals(1, a.iterations());
        a.step(theta, new double[] {0.5}, 0.5);
        // m = 0.9·0.05 + 0.05 = 0.095, v = 0.999·2.5e-4 + 2.5e-4; m̂ = 0.095/0.19 = 0.5, v̂ = v/0.001999
        double v = 0.999 * 0.00025 + 0.001 * 0.25;
        double expected = 1 * (1 - 0.05 * 0.5) - 0.05 * 0.5 / (Math.sqrt(v / (1 - 0.999 * 0.999)) + 1e-8);
        assertEquals((float) expected, theta[0], 1e-7f);
        assertThrows(IllegalArgumentException.class, () -> a.step(theta, new double[] {0}, -1));
        float[] gd = {1f};
        Optimizer.gradientDescent(0.1).step(gd, new double[] {1.0}, 0.5);
        assertEquals(0.95f, gd[0]);
    }

    @Test
    @DisplayName("linearWarmup is get_linear_schedule_with_warmup: t/w, then (T − t)/(T − w), never below 0")
    void linearWarmup() {
        LearningRateSchedule s = LearningRateSchedule.linearWarmup(2, 8);
        double[] expected = {0, 0.5, 1, 5 / 6.0, 4 / 6.0, 3 / 6.0, 2 / 6.0, 1 / 6.0, 0, 0};
        for (int t = 0; t < expected.length; t++) {
            assertEquals(expected[t], s.factor(t), 1e-15, "step " + t);
        }
        LearningRateSchedule none = LearningRateSchedule.linearWarmup(0, 4);
        assertEquals(1.0, none.factor(0));
        assertEquals(0.25, none.factor(3));
        assertEquals(0.0, LearningRateSchedule.linearWarmup(3, 3).factor(0), "the first warmup step has lr 0");
        assertEquals(1.0, LearningRateSchedule.constant().factor(99));
        assertThrows(IllegalArgumentException.class, () -> LearningRateSchedule.linearWarmup(-1, 3));
    }

    @Test
    @DisplayName("cosineWarmup is get_cosine_schedule_with_warmup (half a cycle): t/w, then ½(1 + cos(π(t − w)/(T − w)))")
    void cosineWarmup() {
        LearningRateSchedule s = LearningRateSchedule.cosineWarmup(2, 8);
        // Hugging Face's formula evaluated in Python (float64), steps 0 … 9.
        double[] expected = {0.0, 0.5, 1.0, 0.9330127018922194, 0.75, 0.5, 0.2500000000000001, 0.06698729810778065,
            0.0, 0.0669872981077807};
        for (int t = 0; t < expected.length; t++) {
            assertEquals(expected[t], s.factor(t), 1e-15, "step " + t);
        }
        assertEquals(1.0, LearningRateSchedule.cosineWarmup(0, 4).factor(0), "no warmup: the peak at step 0");
        assertThrows(IllegalArgumentException.class, () -> LearningRateSchedule.cosineWarmup(-1, 3));
        assertThrows(IllegalArgumentException.class, () -> LearningRateSchedule.cosineWarmup(1, -3));
    }

    @Test
    @DisplayName("clipByGlobalNorm scales by maxNorm/(total + 1e-6) when that is below 1, and returns the total")
    void clipping() {
        double[] g = {3, 4};
        assertEquals(5.0, GradientClipping.clipByGlobalNorm(g, 1.0));
        assertArrayEquals(new double[] {3 / (5 + 1e-6), 4 / (5 + 1e-6)}, g, 1e-15);
        double[] small = {0.3, 0.4};
        GradientClipping.clipByGlobalNorm(small, 1.0);
        assertArrayEquals(new double[] {0.3, 0.4}, small);
        assertThrows(IllegalArgumentException.class, () -> GradientClipping.clipByGlobalNorm(g, 0));
    }

    @Test
    @DisplayName("Hugging Face's decay rule: not biases, not LayerNorm parameters")
    void decayRule() {
        assertEquals(true, ParameterTensor.of("encoder.layer.0.output.dense.weight", 0, 1).decayed());
        assertEquals(false, ParameterTensor.of("encoder.layer.0.output.dense.bias", 0, 1).decayed());
        assertEquals(false, ParameterTensor.of("embeddings.LayerNorm.weight", 0, 1).decayed());
        assertEquals(true, ParameterTensor.of("embeddings.word_embeddings.weight", 0, 1).decayed());
        assertThrows(IllegalArgumentException.class, () -> ParameterTensor.of("x", -1, 1));
    }
}
