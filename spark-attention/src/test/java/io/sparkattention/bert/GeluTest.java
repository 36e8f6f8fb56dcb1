package io.sparkattention.bert;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exact-erf GELU: erf within 1e-7 of the exact value in float32 over a dense grid. */
class GeluTest {

    /** erf to ~1e-13 (the Taylor sum's cancellation near 3 costs the last digits): Taylor series up to 3, Laplace's continued fraction for erfc beyond. */
    static double exactErf(double x) {
        double a = Math.abs(x);
        double r;
        if (a <= 3) {
            double term = a, sum = a, a2 = a * a;
            for (int n = 1; n < 200 && Math.abs(term) > 1e-20; n++) {
                term *= -a2 / n;
                sum += term / (2 * n + 1);
            }
            r = 2 / Math.sqrt(Math.PI) * sum;
        } else {
            double k = a;
            for (int n = 80; n >= 1; n--) {
                k = a + (n / 2.0) / k;
            }
            r = 1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / k;
        }
        return Math.copySign(r, x);
    }

    @Test
    void theReferenceErfIsRight() {
        assertEquals(0.5204998778130465, exactErf(0.5), 1e-13);
        assertEquals(0.8427007929497149, exactErf(1), 1e-13);
        assertEquals(0.9953222650189527, exactErf(2), 1e-13);
        assertEquals(0.9999779095030014, exactErf(3), 1e-13);
        assertEquals(0.9999999845827421, exactErf(4), 1e-13);
        assertEquals(-0.9999999999984626, exactErf(-5), 1e-13);
    }

    @Test
    void erfRoundedToFloatIsWithin1e7OfExactOnADenseGrid() {
        double worst = 0;
        for (int i = -800_000; i <= 800_000; i++) {
            double z = i * 1e-5;
            worst = Math.max(worst, Math.abs((float) Gelu.erf(z) - exactErf(z)));
        }
        assertTrue(worst <= 1e-7, "largest error " + worst);
        assertTrue(Gelu.erf(Double.NaN) != Gelu.erf(Double.NaN), "NaN stays NaN");
        assertEquals(1.0, Gelu.erf(Double.POSITIVE_INFINITY));
        assertEquals(-1.0, Gelu.erf(Double.NEGATIVE_INFINITY));
    }

    @Test
    /**
     * Within 1e-7 of exact, relative to max(1, |gelu|): in the left tail ½·x·(1 + erf) cancels, so
     * there (as in PyTorch's float32 GELU) the error is absolute.
     */
    void geluOnADenseGridIsWithin1e7OfExact() {
        float[] xs = new float[200_001];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = (i - 100_000) * 1e-4f;
        }
        float[] y = xs.clone();
        Gelu.apply(y, 0, y.length);
        float[] vector = xs.clone();
        EncoderMath.INSTANCE.gelu(vector, vector.length - 3);
        double worst = 0;
        for (int i = 0; i < xs.length; i++) {
            double exact = 0.5 * xs[i] * (1 + exactErf(xs[i] / Math.sqrt(2)));
            worst = Math.max(worst, Math.abs(y[i] - exact) / Math.max(Math.abs(exact), 1));
            assertEquals(Gelu.gelu(xs[i]), y[i], "apply and gelu agree at " + xs[i]);
            assertEquals(i < xs.length - 3 ? y[i] : xs[i], vector[i], EncoderMath.INSTANCE.name() + " at " + xs[i]);
        }
        assertTrue(worst <= 1e-7, "largest error " + worst);
    }

    /**
     * Every length from 0 to past two blocks of side-by-side chains (so each mix of chained
     * vectors, single vectors and scalar tail), on seeded values spanning the saturation at
     * |x/√2| = 4 and both signs: each element is {@link Gelu#gelu}'s bits, where it sits.
     */
    @Test
    void everyLengthGivesEachElementTheScalarBits() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(29);
        for (int n = 0; n <= 2 * 4 * 8 + 17; n++) {
            float[] xs = new float[n + 2];
            for (int i = 0; i < xs.length; i++) {
                xs[i] = (float) (random.nextDouble() * 16 - 8);
            }
            float[] vector = xs.clone();
            EncoderMath.INSTANCE.gelu(vector, n);
            for (int i = 0; i < xs.length; i++) {
                assertEquals(i < n ? Gelu.gelu(xs[i]) : xs[i], vector[i], "n = " + n + ", element " + i + " = " + xs[i]);
            }
        }
    }

    /**
     * The backward's full-width float vectors (two double vectors' chains side by side) give each
     * element the bits a lone half vector gives it (a zero-padded copy's): the whole array at once
     * equals the array cut into slices of one double vector, and each is within 2e-7 relative of
     * {@link Gelu#backward}'s float64 value.
     */
    @Test
    void theBackwardsWholeVectorsGiveTheHalfVectorBits() {
        int lanes = jdk.incubator.vector.DoubleVector.SPECIES_PREFERRED.length();
        java.util.SplittableRandom random = new java.util.SplittableRandom(31);
        int n = 5 * jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length() + lanes + 3;
        float[] pre = new float[n], dy = new float[n];
        for (int i = 0; i < n; i++) {
            pre[i] = (float) (random.nextDouble() * 16 - 8);
            dy[i] = (float) (random.nextDouble() * 2 - 1);
        }
        float[] whole = new float[n], sliced = new float[n], scalar = new float[n];
        EncoderMath.INSTANCE.geluBackward(pre, dy, whole, n);
        for (int i0 = 0; i0 < n; i0 += lanes) {
            int len = Math.min(lanes, n - i0);
            float[] d = new float[len];
            EncoderMath.INSTANCE.geluBackward(java.util.Arrays.copyOfRange(pre, i0, i0 + len),
                java.util.Arrays.copyOfRange(dy, i0, i0 + len), d, len);
            System.arraycopy(d, 0, sliced, i0, len);
        }
        Gelu.backward(pre, dy, scalar, n);
        for (int i = 0; i < n; i++) {
            assertEquals(sliced[i], whole[i], "element " + i + " at " + pre[i]);
            assertEquals(scalar[i], whole[i], 2e-7 * Math.max(1e-3, Math.abs(scalar[i])), "element " + i);
        }
    }

    /**
     * Moving a row's float32 gradient into float64 sums: every sub-range of a seeded array (so
     * every alignment and tail), on both paths, adds each value exactly (the float64 sum of the
     * two, computed here) and clears it, touching nothing outside the range.
     */
    @Test
    void addAndClearAddsEachValueExactlyAndClearsOnlyTheRange() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(37);
        int n = 41;
        for (EncoderMath math : new EncoderMath[] {EncoderMath.INSTANCE, new EncoderMath.Scalar()}) {
            for (int from = 0; from <= n; from++) {
                for (int to = from; to <= n; to++) {
                    float[] part = new float[n];
                    double[] sums = new double[n];
                    for (int i = 0; i < n; i++) {
                        part[i] = (float) (random.nextDouble() * 2e3 - 1e3);
                        sums[i] = random.nextDouble() * 2e6 - 1e6;
                    }
                    float[] part0 = part.clone();
                    double[] sums0 = sums.clone();
                    math.addAndClear(part, sums, from, to);
                    for (int i = 0; i < n; i++) {
                        boolean in = i >= from && i < to;
                        assertEquals(in ? sums0[i] + (double) part0[i] : sums0[i], sums[i], math.name() + " at " + i);
                        assertEquals(in ? 0f : part0[i], part[i], math.name() + " at " + i);
                    }
                }
            }
        }
    }

    @Test
    void theVectorPathIsTheOneInUseWhenTheModuleIsVisible() {
        assertTrue(EncoderMath.INSTANCE.name().startsWith("vector"), EncoderMath.INSTANCE.name());
    }

    @Test
    void theDerivativeMatchesFiniteDifferencesOfTheExactGelu() {
        for (double x = -8; x <= 8; x += 0.0625) {
            double h = 1e-5;
            double up = (x + h) / 2 * (1 + exactErf((x + h) / Math.sqrt(2)));
            double down = (x - h) / 2 * (1 + exactErf((x - h) / Math.sqrt(2)));
            double fd = (up - down) / (2 * h);
            assertEquals(fd, Gelu.derivative(x), 1e-8, "gelu'(" + x + ")");
        }
        java.util.Random r = new java.util.Random(3);
        int n = 1003;
        float[] pre = new float[n], dy = new float[n], scalar = new float[n], vector = new float[n];
        for (int i = 0; i < n; i++) {
            pre[i] = (float) (r.nextGaussian() * 3);
            dy[i] = (float) r.nextGaussian();
        }
        new EncoderMath.Scalar().geluBackward(pre, dy, scalar, n);
        EncoderMath.INSTANCE.geluBackward(pre, dy, vector, n);
        for (int i = 0; i < n; i++) {
            assertEquals((float) (dy[i] * Gelu.derivative(pre[i])), scalar[i]);
            assertEquals(scalar[i], vector[i], 2e-7 * Math.max(1e-3, Math.abs(scalar[i])), EncoderMath.INSTANCE.name()
                + " at " + pre[i]);
        }
    }
}
