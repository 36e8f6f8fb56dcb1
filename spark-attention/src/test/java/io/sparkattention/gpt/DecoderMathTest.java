package io.sparkattention.gpt;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gelu_new and the log-sum-exp on both paths against float64 (the log-sum-exp's exponentials
 * also against 40-digit decimals): gelu_new within one float32 ulp of the exact value over
 * [−12, 12] and at the edges; the log-sum-exp of a 50,257-wide row within 1e-13 relative; the
 * backward passes (gelu_new's derivative, the weighted log-softmax gradient) within a float32 ulp
 * of float64 and, for the derivative, of central differences of gelu_new in double.
 */
class DecoderMathTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scalar", "vector"})
    void geluNewIsWithinAFloatUlpOfFloat64(String path) {
        DecoderMath math = DecoderMath.CHOICE.create(path);
        Random rng = new Random(1);
        int n = 20_003;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i < 12 ? new float[] {0f, -0f, 1e-30f, -1e-30f, 3f, -3f, 10f, -10f, 60f, -60f, 1e6f, -1e6f}[i]
                : (float) (rng.nextDouble() * 24 - 12);
        }
        float[] y = x.clone();
        math.geluNew(y, n);
        for (int i = 0; i < n; i++) {
            double u = x[i];
            double exact = 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u * u * u)));
            assertTrue(Math.abs(y[i] - exact) <= Math.ulp((float) exact) + 1e-45, path + " gelu_new(" + x[i] + ") = "
                + y[i] + ", exact " + exact);
        }
        assertEquals(0f, y[0]);
        assertEquals(1e6f, y[10]);
        assertTrue(y[11] == 0f, "gelu_new(-1e6) is 0, got " + y[11]);
    }

    /**
     * The same bits before and after the JIT compiles the loops (the Vector API's own EXP and TANH
     * would not give them: a row's log-probabilities would change with the JVM's warmth).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scalar", "vector"})
    void theBitsDoNotDependOnHowWarmTheJitIs(String path) {
        DecoderMath math = DecoderMath.CHOICE.create(path);
        Random rng = new Random(3);
        int rows = 2000, width = 16;
        float[] x = new float[rows * width];
        for (int j = 0; j < x.length; j++) {
            x[j] = (float) (rng.nextGaussian() * 3);
        }
        float[] cold = x.clone();
        double[] coldLse = new double[rows];
        for (int r = 0; r < rows; r++) {
            coldLse[r] = math.logSumExp(x, r * width, width);
        }
        math.geluNew(cold, cold.length);
        for (int i = 0; i < 30; i++) {
            for (int r = 0; r < rows; r++) {
                math.logSumExp(x, r * width, width);
            }
            math.geluNew(x.clone(), x.length);
        }
        float[] warm = x.clone();
        math.geluNew(warm, warm.length);
        assertArrayEquals(cold, warm, path + " gelu_new");
        for (int r = 0; r < rows; r++) {
            assertEquals(coldLse[r], math.logSumExp(x, r * width, width), 0.0, path + " log-sum-exp of row " + r);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scalar", "vector"})
    void logSumExpOfAVocabularyRowIsFloat64Accurate(String path) {
        DecoderMath math = DecoderMath.CHOICE.create(path);
        Random rng = new Random(2);
        int V = 50_257;
        float[] row = new float[V + 3];
        for (int j = 0; j < row.length; j++) {
            row[j] = (float) (rng.nextGaussian() * 4 - 1);
        }
        row[3 + 777] = 25f;
        BigDecimal sum = BigDecimal.ZERO;
        MathContext mc = new MathContext(40);
        for (int j = 0; j < V; j++) {
            sum = sum.add(new BigDecimal(Math.exp((double) row[3 + j] - 25.0)), mc);
        }
        double exact = 25.0 + Math.log(sum.doubleValue());
        double lse = math.logSumExp(row, 3, V);
        assertEquals(exact, lse, 1e-13 * Math.abs(exact), path);
        float[] one = {-7.5f};
        assertEquals(-7.5, math.logSumExp(one, 0, 1), 0.0, "one logit is its own log-sum-exp");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scalar", "vector"})
    void geluNewsBackwardIsItsDerivativeWithinAFloatUlp(String path) {
        DecoderMath math = DecoderMath.CHOICE.create(path);
        Random rng = new Random(2);
        int n = 10_007;
        float[] pre = new float[n];
        float[] dy = new float[n];
        for (int i = 0; i < n; i++) {
            pre[i] = i < 6 ? new float[] {0f, -0f, 8f, -8f, 40f, -40f}[i] : (float) (rng.nextDouble() * 16 - 8);
            dy[i] = (float) rng.nextGaussian();
        }
        float[] d = dy.clone();
        math.geluNewBackward(pre, d, d, n);
        for (int i = 0; i < n; i++) {
            double u = pre[i], h = 1e-6;
            double fd = (geluNew(u + h) - geluNew(u - h)) / (2 * h);
            assertEquals(fd, GeluNew.derivative(pre[i]), 1e-8, "gelu_new'(" + u + ") against central differences");
            double exact = dy[i] * GeluNew.derivative(pre[i]);
            assertTrue(Math.abs(d[i] - exact) <= 2 * Math.ulp((float) exact) + 1e-45, path + " at " + u + ": " + d[i]
                + ", exact " + exact);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"scalar", "vector"})
    void theSoftmaxGradientIsWeightedSoftmaxMinusOneHot(String path) {
        DecoderMath math = DecoderMath.CHOICE.create(path);
        Random rng = new Random(3);
        int V = 1_003, target = 417;
        float[] z = new float[V + 5];
        for (int j = 0; j < z.length; j++) {
            z[j] = (float) (rng.nextGaussian() * 4);
        }
        float[] g = z.clone();
        double lse = math.logSumExp(g, 5, V);
        math.softmaxGradient(g, 5, V, lse, target, 1.75);
        double sum = 0;
        for (int j = 0; j < V; j++) {
            double exact = 1.75 * (Math.exp((double) z[5 + j] - lse) - (j == target ? 1 : 0));
            assertTrue(Math.abs(g[5 + j] - exact) <= 2 * Math.ulp((float) exact) + 1e-45, path + " logit " + j + ": "
                + g[5 + j] + ", exact " + exact);
            sum += g[5 + j];
        }
        assertEquals(0, sum, 1e-5, "a log-softmax gradient sums to 0");
        assertArrayEquals(java.util.Arrays.copyOf(z, 5), java.util.Arrays.copyOf(g, 5), "outside the row: untouched");
    }

    private static double geluNew(double u) {
        return 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u * u * u)));
    }
}
