package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Adam's element-wise update: every loop gives, value by value, the bits of the formula written
 * out with each operation rounded once (checked in exact decimal arithmetic), at every length and
 * offset, decayed or not, on gradients from tiny to huge, zero and non-finite.
 */
class AdamUpdateTest {

    private static final AdamUpdate.Coefficients STEP = new AdamUpdate.Coefficients(0.9, 0.999, 1e-8,
        1 - 5e-5 * 0.01, 5e-5 / (1 - 0.9 * 0.9), Math.sqrt(1 - 0.999 * 0.999));

    static Stream<AdamUpdate.Loop> loops() {
        return Stream.of(new VectorAdamUpdate(), AdamUpdate::scalar, AdamUpdate::apply, AdamUpdate.create("auto"),
            AdamUpdate.create("vector"), AdamUpdate.create("scalar"));
    }

    /** One value's update, each IEEE operation taken exactly in BigDecimal and rounded to double once. */
    private static float[] exact(float theta, float m, float v, double g, AdamUpdate.Coefficients h) {
        float mi = (float) round(add(mul(h.beta1(), m), mul(1 - h.beta1(), g)));
        float vi = (float) round(add(mul(h.beta2(), v), mul(round(mul(1 - h.beta2(), g)), g)));
        double sqrt = Math.sqrt(vi); // correctly rounded by the JLS
        double denominator = round(add(new BigDecimal(sqrt).divide(new BigDecimal(h.correction2()),
            MathContext.DECIMAL128), new BigDecimal(h.eps())));
        double quotient = round(new BigDecimal(round(mul(h.stepSize(), mi))).divide(new BigDecimal(denominator),
            MathContext.DECIMAL128));
        double updated = round(new BigDecimal(round(mul(theta, h.decay()))).subtract(new BigDecimal(quotient)));
        return new float[] {(float) updated, mi, vi};
    }

    private static BigDecimal mul(double a, double b) {
        return new BigDecimal(a).multiply(new BigDecimal(b));
    }

    private static BigDecimal add(BigDecimal a, BigDecimal b) {
        return new BigDecimal(round(a)).add(new BigDecimal(round(b)));
    }

    /** To the nearest double (DECIMAL128's 34 digits keep every quotient's rounding right at these magnitudes). */
    private static double round(BigDecimal x) {
        return x.doubleValue();
    }

    @ParameterizedTest
    @MethodSource("loops")
    @DisplayName("each value gets the formula's bits, at every length and offset, decayed and not")
    void matchesTheFormula(AdamUpdate.Loop loop) {
        SplittableRandom random = new SplittableRandom(43);
        for (int n : new int[] {0, 1, 7, 8, 15, 16, 17, 31, 33, 64, 100, 1023, 1041, 2053}) {
            for (int from : new int[] {0, 1, 5}) {
                for (AdamUpdate.Coefficients h : new AdamUpdate.Coefficients[] {STEP, STEP.undecayed()}) {
                    float[] theta = new float[from + n + 3];
                    float[] m = new float[theta.length];
                    float[] v = new float[theta.length];
                    double[] g = new double[n + 2];
                    for (int i = 0; i < theta.length; i++) {
                        theta[i] = (float) random.nextGaussian();
                        m[i] = (float) (random.nextGaussian() * 1e-3);
                        v[i] = (float) (random.nextDouble() * 1e-6);
                    }
                    for (int i = 0; i < g.length; i++) {
                        g[i] = random.nextGaussian() * Math.pow(10, random.nextInt(-12, 4));
                    }
                    float[] t0 = theta.clone(), m0 = m.clone(), v0 = v.clone();
                    int base = from - 1;
                    loop.apply(theta, m, v, g, base, from, from + n, h);
                    for (int i = 0; i < theta.length; i++) {
                        float[] want = i >= from && i < from + n ? exact(t0[i], m0[i], v0[i], g[i - base], h)
                            : new float[] {t0[i], m0[i], v0[i]};
                        String at = "n " + n + " from " + from + " decay " + h.decay() + " value " + i;
                        assertEquals(want[0], theta[i], at + ": θ");
                        assertEquals(want[1], m[i], at + ": m");
                        assertEquals(want[2], v[i], at + ": v");
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("loops")
    @DisplayName("zero, huge and non-finite gradients give the scalar loop's bits (NaN stays NaN, ∞ gives NaN or 0)")
    void edgesAsTheScalarLoop(AdamUpdate.Loop loop) {
        double[] g = {0, -0.0, 1e300, -1e300, Double.MIN_VALUE, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, 3e38, -3e38, 1e-30, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
        float[] theta = new float[g.length];
        float[] m = new float[g.length];
        float[] v = new float[g.length];
        for (int i = 0; i < g.length; i++) {
            theta[i] = i % 3 == 0 ? Float.MAX_VALUE : i - 5;
            m[i] = i % 4 == 0 ? Float.POSITIVE_INFINITY : 0.5f;
            v[i] = i % 5 == 0 ? 0f : 0.25f;
        }
        float[] t1 = theta.clone(), m1 = m.clone(), v1 = v.clone();
        loop.apply(theta, m, v, g, 0, 0, g.length, STEP);
        AdamUpdate.scalar(t1, m1, v1, g, 0, 0, g.length, STEP);
        assertArrayEquals(t1, theta);
        assertArrayEquals(m1, m);
        assertArrayEquals(v1, v);
    }

    @Test
    @DisplayName("a vector of VECTOR_MIN_VALUES and more takes the chosen loop, shorter ones the plain loop: the same bits")
    void longVectors() {
        SplittableRandom random = new SplittableRandom(44);
        int n = AdamUpdate.VECTOR_MIN_VALUES + 5;
        float[] theta = new float[n];
        float[] m = new float[n];
        float[] v = new float[n];
        double[] g = new double[n];
        for (int i = 0; i < n; i++) {
            theta[i] = (float) random.nextGaussian();
            m[i] = (float) (random.nextGaussian() * 1e-3);
            v[i] = (float) (random.nextDouble() * 1e-6);
            g[i] = random.nextGaussian() * 1e-2;
        }
        float[] t1 = theta.clone(), m1 = m.clone(), v1 = v.clone();
        AdamUpdate.apply(theta, m, v, g, 0, 3, n, STEP);
        AdamUpdate.scalar(t1, m1, v1, g, 0, 3, n, STEP);
        assertArrayEquals(t1, theta);
        assertArrayEquals(m1, m);
        assertArrayEquals(v1, v);
    }

    @Test
    @DisplayName("the loop is chosen by sparkattention.adam: an unknown name names the property and the choices")
    void choiceByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AdamUpdate.create("fast"));
        assertEquals("Adam update \"fast\" (system property sparkattention.adam): expected auto, vector or scalar",
            e.getMessage());
    }
}
