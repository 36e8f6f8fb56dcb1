package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classifier against PyTorch's float64 autograd ({@code cls_*} fixtures): gradients and
 * logits at the starting weights, then the fixture's full-batch training loop — loss before each
 * step, the optimiser's update with the mean gradient — and the loss, logits and weights after it.
 * Tolerances are the README's: ‖got − ref‖/‖ref‖ ≤ 1e-5 for gradients and logits, 1e-4 for the
 * loss history and the final weights (the key bias only after gradient descent).
 */
class ClassifierFixturesTest {

    private static final double GRADIENT_TOLERANCE = 1e-5;
    private static final double TRAINING_TOLERANCE = 1e-4;

    @ParameterizedTest
    @ValueSource(strings = {"cls_basic", "cls_causal_last", "cls_first_noresidual_gd", "cls_weighted_adamw"})
    @DisplayName("at the starting weights every parameter's gradient and every logit match PyTorch within 1e-5")
    void gradientsAndLogitsAtTheStart(String name) {
        ClassifierFixture f = ClassifierFixture.open(name);
        float[] theta = f.initialParameters();
        double[] grad = new double[f.net.parameterCount()];
        double loss = f.lossAndGradient(theta, grad);
        double[] expectedGrad = f.flat("expected.grad.");
        for (ParameterTensor t : f.net.parameters()) {
            if (t.name().equals(AttentionClassifierNetwork.IN_PROJ_BIAS)) {
                int e = f.net.embedDim();
                assertRelative(name + " grad query bias", slice(expectedGrad, t.offset(), e),
                    slice(grad, t.offset(), e), GRADIENT_TOLERANCE);
                assertSmallNoise(name + " grad key bias", slice(grad, t.offset() + e, e), grad);
                assertRelative(name + " grad value bias", slice(expectedGrad, t.offset() + 2 * e, e),
                    slice(grad, t.offset() + 2 * e, e), GRADIENT_TOLERANCE);
            } else {
                assertRelative(name + " grad " + t.name(), slice(expectedGrad, t.offset(), t.size()),
                    slice(grad, t.offset(), t.size()), GRADIENT_TOLERANCE);
            }
        }
        assertRelative(name + " logits before training", f.expected("expected.logits_initial"),
            toDouble(f.logits(theta)), GRADIENT_TOLERANCE);
        assertEquals(f.expected("expected.loss_history")[0], loss, TRAINING_TOLERANCE * Math.abs(loss),
            name + " loss at the start");
    }

    @ParameterizedTest
    @ValueSource(strings = {"cls_basic", "cls_causal_last", "cls_first_noresidual_gd", "cls_weighted_adamw"})
    @DisplayName("full-batch training gives PyTorch's loss history, final loss, final logits and final weights")
    void fullBatchTraining(String name) {
        ClassifierFixture f = ClassifierFixture.open(name);
        float[] theta = f.initialParameters();
        double[] grad = new double[f.net.parameterCount()];
        Optimizer optimizer = f.optimizer();
        List<Double> history = new ArrayList<>();
        for (int step = 0; step < f.steps(); step++) {
            history.add(f.lossAndGradient(theta, grad));
            optimizer.step(theta, grad);
        }
        assertEquals(f.steps(), optimizer.iterations());
        double finalLoss = f.lossAndGradient(theta, grad);
        assertRelative(name + " loss history", f.expected("expected.loss_history"),
            history.stream().mapToDouble(Double::doubleValue).toArray(), TRAINING_TOLERANCE);
        assertEquals(f.expected("expected.final_loss")[0], finalLoss, TRAINING_TOLERANCE * Math.abs(finalLoss),
            name + " final loss");
        assertRelative(name + " logits after training", f.expected("expected.logits_final"),
            toDouble(f.logits(theta)), TRAINING_TOLERANCE);

        boolean gd = "gd".equals(f.config.get("solver").asText());
        double[] expected = f.flat("expected.final.");
        double[] got = toDouble(theta);
        for (ParameterTensor t : f.net.parameters()) {
            if (t.name().equals(AttentionClassifierNetwork.IN_PROJ_BIAS) && !gd) {
                int e = f.net.embedDim();  // the key bias [E, 2E) drifts on float32 noise under Adam
                assertRelative(name + " final query bias", slice(expected, t.offset(), e), slice(got, t.offset(), e),
                    TRAINING_TOLERANCE);
                assertRelative(name + " final value bias", slice(expected, t.offset() + 2 * e, e),
                    slice(got, t.offset() + 2 * e, e), TRAINING_TOLERANCE);
            } else {
                assertRelative(name + " final " + t.name(), slice(expected, t.offset(), t.size()),
                    slice(got, t.offset(), t.size()), TRAINING_TOLERANCE);
            }
        }
    }

    /** ‖got − ref‖ / ‖ref‖ ≤ tolerance; ‖got‖ ≤ tolerance where the reference is exactly 0. */
    static void assertRelative(String what, double[] ref, double[] got, double tolerance) {
        assertEquals(ref.length, got.length, what + ": length");
        double diff = 0, norm = 0;
        for (int i = 0; i < ref.length; i++) {
            diff += (got[i] - ref[i]) * (got[i] - ref[i]);
            norm += ref[i] * ref[i];
        }
        double relative = Math.sqrt(norm == 0 ? diff : diff / norm);
        assertTrue(relative <= tolerance, String.format("%s: relative error %.3g > %.1g (ref %s, got %s)", what,
            relative, tolerance, Arrays.toString(Arrays.copyOf(ref, Math.min(6, ref.length))),
            Arrays.toString(Arrays.copyOf(got, Math.min(6, got.length)))));
    }

    /** The key bias's gradient is 0 in exact arithmetic: float32 noise only, tiny next to the whole gradient. */
    private static void assertSmallNoise(String what, double[] part, double[] whole) {
        double partNorm = 0, wholeNorm = 0;
        for (double x : part) {
            partNorm += x * x;
        }
        for (double x : whole) {
            wholeNorm += x * x;
        }
        assertTrue(Math.sqrt(partNorm) <= GRADIENT_TOLERANCE * Math.sqrt(wholeNorm),
            what + ": " + Math.sqrt(partNorm) + " is not noise next to " + Math.sqrt(wholeNorm));
    }

    static double[] slice(double[] a, int from, int n) {
        return Arrays.copyOfRange(a, from, from + n);
    }

    static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }
}
