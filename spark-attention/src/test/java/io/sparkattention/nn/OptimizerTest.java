package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The optimisers against steps worked out by hand with torch.optim's formulas (θ = [1, −0.5],
 * lr = 0.1, gradients [0.5, −0.1], [−0.25, 0.2], [0.125, 0]).
 */
class OptimizerTest {

    private static final double[][] GRADIENTS = {{0.5, -0.1}, {-0.25, 0.2}, {0.125, 0.0}};

    @Test
    @DisplayName("Adam: bias-corrected moments, eps outside the square root, as torch.optim.Adam")
    void adamMatchesHandComputedSteps() {
        // Step 1: m̂ = g, v̂ = g², so θ moves by lr·g/(|g| + eps): 1 → 0.9, −0.5 → −0.4.
        // Step 2, θ₀: m = 0.9·0.05 − 0.1·0.25 = 0.02, v = 0.999·2.5e-4 + 0.001·0.0625 = 3.1225e-4,
        //   m̂ = 0.02/0.19, v̂ = 3.1225e-4/0.001999, θ₀ = 0.9 − 0.1·m̂/(√v̂ + 1e-8) = 0.8733663.
        float[][] expected = {{0.9f, -0.4f}, {0.8733663f, -0.43661037f}, {0.8393234f, -0.46491027f}};
        assertSteps(Optimizer.adam(0.1, 0.9, 0.999, 1e-8, 0), expected);
    }

    @Test
    @DisplayName("AdamW: θ·(1 − lr·weightDecay) before the Adam update, as torch.optim.AdamW")
    void adamWMatchesHandComputedSteps() {
        // Step 1 with weight decay 0.5: θ₀ = 1·(1 − 0.05) − 0.1 = 0.85, θ₁ = −0.5·0.95 + 0.1 = −0.375.
        float[][] expected = {{0.85f, -0.375f}, {0.7808663f, -0.39286035f}, {0.7077801f, -0.40151724f}};
        assertSteps(Optimizer.adam(0.1, 0.9, 0.999, 1e-8, 0.5), expected);
    }

    @Test
    @DisplayName("gradient descent: θ ← θ − lr·g")
    void gradientDescentMatchesHandComputedSteps() {
        float[][] expected = {{0.95f, -0.49f}, {0.975f, -0.51f}, {0.9625f, -0.51f}};
        assertSteps(Optimizer.gradientDescent(0.1), expected);
    }

    @Test
    @DisplayName("Adam's default hyper-parameters are PyTorch's: betas (0.9, 0.999), eps 1e-8")
    void adamDefaultsArePyTorchs() {
        Optimizer a = Optimizer.adam(0.1, 0.0);
        Optimizer b = Optimizer.adam(0.1, 0.9, 0.999, 1e-8, 0.0);
        float[] x = {1f, -0.5f}, y = {1f, -0.5f};
        for (double[] g : GRADIENTS) {
            a.step(x, g);
            b.step(y, g);
        }
        assertArrayEquals(y, x);
    }

    @Test
    @DisplayName("with a zero gradient Adam leaves θ as it is and AdamW only decays it")
    void zeroGradient() {
        float[] theta = {2f, -4f};
        Optimizer.adam(0.01, 0).step(theta, new double[2]);
        assertArrayEquals(new float[] {2f, -4f}, theta);
        Optimizer.adam(0.01, 0.1).step(theta, new double[2]);
        assertArrayEquals(new float[] {2f * 0.999f, -4f * 0.999f}, theta, 1e-7f);
    }

    @Test
    @DisplayName("an optimiser's state travels with it: a copy continues as the original would")
    void serializedStateContinues() throws IOException, ClassNotFoundException {
        Optimizer original = Optimizer.adam(0.1, 0.01);
        float[] x = {1f, -0.5f};
        original.step(x, GRADIENTS[0]);
        Optimizer copy = roundTrip(original);
        float[] y = x.clone();
        original.step(x, GRADIENTS[1]);
        copy.step(y, GRADIENTS[1]);
        assertArrayEquals(x, y);
        assertEquals(2, copy.iterations());
    }

    @Test
    @DisplayName("AdamW over a vector of many chunks and decay groups gives, value for value, the formula's bits "
        + "(the chunks run in parallel)")
    void chunkedUpdateIsTheFormula() {
        int n = 3 * Optimizer.CHUNK + 123;
        java.util.Random random = new java.util.Random(12);
        float[] theta = new float[n];
        double[] g = new double[n];
        for (int i = 0; i < n; i++) {
            theta[i] = random.nextFloat() - 0.5f;
            g[i] = random.nextGaussian();
        }
        float[] want = theta.clone();
        double lr = 1e-3, decay = 0.01, factor = 0.5;
        Optimizer.adamW(lr, decay, groupsAcrossChunks(n)).step(theta, g, factor);
        double rate = lr * factor, stepSize = rate / (1 - 0.9), correction2 = Math.sqrt(1 - 0.999);
        for (int i = 0; i < n; i++) {
            // The first step's moments, rounded to float32 as the optimiser keeps them.
            float m = (float) ((1 - 0.9) * g[i]), v = (float) ((1 - 0.999) * g[i] * g[i]);
            boolean decayed = i < Optimizer.CHUNK + 7 || i >= 2 * Optimizer.CHUNK + 7;
            double p = decayed ? want[i] * (1 - rate * decay) : want[i];
            want[i] = (float) (p - stepSize * m / (Math.sqrt(v) / correction2 + 1e-8));
        }
        assertArrayEquals(want, theta, 0f);
    }

    @Test
    @DisplayName("a gradient read range by range gives the bits of the same gradient as one array, for AdamW over "
        + "many chunks and decay groups and for gradient descent")
    void rangesGiveTheArrayBits() {
        int n = 3 * Optimizer.CHUNK + 321;
        double[][] g = new double[3][n];
        float[] theta = new float[n];
        java.util.Random random = new java.util.Random(31);
        for (int i = 0; i < n; i++) {
            theta[i] = random.nextFloat() - 0.5f;
            for (double[] step : g) {
                step[i] = random.nextGaussian();
            }
        }
        java.util.List<ParameterTensor> layout = groupsAcrossChunks(n);
        Optimizer[] byArray = {Optimizer.adamW(1e-3, 0.01, layout), Optimizer.gradientDescent(0.1)};
        Optimizer[] byRange = {Optimizer.adamW(1e-3, 0.01, layout), Optimizer.gradientDescent(0.1)};
        for (int o = 0; o < byArray.length; o++) {
            float[] x = theta.clone(), y = theta.clone();
            for (double[] step : g) {
                byArray[o].step(x, step, 0.5);
                byRange[o].step(y, n, (from, to, into) -> {
                    for (int i = from; i < to; i++) {
                        into[i - from] = step[i];
                    }
                }, 0.5);
            }
            assertArrayEquals(x, y, 0f);
        }
        assertThrows(IllegalArgumentException.class,
            () -> Optimizer.gradientDescent(0.1).step(new float[3], 4, (from, to, into) -> { }, 1.0));
    }

    /** Groups of n values that cut across chunk boundaries: decayed, a bias (not decayed), decayed. */
    private static java.util.List<ParameterTensor> groupsAcrossChunks(int n) {
        int c = Optimizer.CHUNK;
        return java.util.List.of(ParameterTensor.of("a.weight", 0, c + 7), ParameterTensor.of("a.bias", c + 7, c),
            ParameterTensor.of("b.weight", 2 * c + 7, n - 2 * c - 7));
    }

    @Test
    @DisplayName("bad hyper-parameters and mismatched vectors are rejected, naming the problem")
    void rejectsBadArguments() {
        assertMessage("stepSize", () -> Optimizer.gradientDescent(0));
        assertMessage("stepSize", () -> Optimizer.adam(Double.NaN, 0));
        assertMessage("beta1", () -> Optimizer.adam(0.1, 1.0, 0.999, 1e-8, 0));
        assertMessage("beta2", () -> Optimizer.adam(0.1, 0.9, -0.1, 1e-8, 0));
        assertMessage("eps", () -> Optimizer.adam(0.1, 0.9, 0.999, -1, 0));
        assertMessage("weightDecay", () -> Optimizer.adam(0.1, -0.01));
        assertMessage("gradient has 3 values", () -> Optimizer.gradientDescent(0.1).step(new float[2], new double[3]));
        Optimizer adam = Optimizer.adam(0.1, 0);
        adam.step(new float[2], new double[2]);
        assertMessage("optimiser's state", () -> adam.step(new float[3], new double[3]));
    }

    private static void assertSteps(Optimizer optimizer, float[][] expected) {
        float[] theta = {1f, -0.5f};
        for (int t = 0; t < GRADIENTS.length; t++) {
            optimizer.step(theta, GRADIENTS[t]);
            assertArrayEquals(expected[t], theta, 1e-6f, "after step " + (t + 1));
        }
        assertEquals(GRADIENTS.length, optimizer.iterations());
    }

    private static void assertMessage(String fragment, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    private static Optimizer roundTrip(Optimizer o) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (Optimizer) in.readObject();
        }
    }
}
