package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The vectorised exp against {@link Math#exp}. */
class VectorExpTest {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    /** Relative error allowed over the normal range: a few ulp (2⁻²³ ≈ 1.2e-7). */
    private static final double RELATIVE = 4e-7;

    private static float[] exp(float[] x, boolean nonPositive) {
        int n = SPECIES.loopBound(x.length + SPECIES.length() - 1);
        float[] in = new float[n], out = new float[n];
        System.arraycopy(x, 0, in, 0, x.length);
        for (int i = 0; i < n; i += SPECIES.length()) {
            FloatVector v = FloatVector.fromArray(SPECIES, in, i);
            (nonPositive ? VectorExp.expNonPositive(v) : VectorExp.exp(v)).intoArray(out, i);
        }
        float[] y = new float[x.length];
        System.arraycopy(out, 0, y, 0, x.length);
        return y;
    }

    @Test
    @DisplayName("relative error of a few ulp over the whole normal range, dense and random")
    void matchesMathExp() {
        SplittableRandom random = new SplittableRandom(5);
        float[] x = new float[400_000];
        for (int i = 0; i < x.length; i++) {
            // half on a dense grid of [-87.3, 88.3], half random (covers every rounding of n)
            x[i] = i % 2 == 0 ? -87.3f + 175.6f * i / x.length : (float) random.nextDouble(-87.3, 88.3);
        }
        float[] y = exp(x, false);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double ref = Math.exp(x[i]);
            double rel = Math.abs(y[i] - ref) / ref;
            worst = Math.max(worst, rel);
            assertTrue(rel <= RELATIVE, "exp(" + x[i] + ") = " + y[i] + ", Math.exp " + ref + ", rel " + rel);
        }
        assertTrue(worst > 0, "suspiciously exact");
    }

    @Test
    @DisplayName("edges: exp(0) = 1 exactly, -inf and large negatives give 0, +inf gives +inf, NaN stays NaN")
    void edges() {
        float[] x = {0f, -0f, Float.NEGATIVE_INFINITY, -1000f, -88.5f, -104f, Float.POSITIVE_INFINITY, 89f, 1e30f,
            Float.NaN, -Float.MIN_VALUE, Float.MIN_VALUE, -1e-30f};
        for (boolean nonPositive : new boolean[] {false, true}) {
            float[] y = exp(x, nonPositive);
            assertEquals(1f, y[0]);
            assertEquals(1f, y[1]);
            assertEquals(0f, y[2]);
            assertEquals(0f, y[3]);
            assertTrue(y[4] >= 0f && y[4] < 1e-38f, "exp(-88.5) = " + y[4]);  // true value 4e-39, subnormal
            assertEquals(0f, y[5]);
            assertTrue(Float.isNaN(y[9]), "NaN in, NaN out");
            assertEquals(1f, y[10]);
            assertEquals(1f, y[12]);
            if (!nonPositive) {
                assertEquals(Float.POSITIVE_INFINITY, y[6]);
                assertEquals(Float.POSITIVE_INFINITY, y[7]);
                assertEquals(Float.POSITIVE_INFINITY, y[8]);
                assertEquals(1f, y[11]);
            }
        }
    }

    @Test
    @DisplayName("the subnormal band: flushed to 0 or close to Math.exp, never above it by more than 1e-38")
    void subnormalBand() {
        float[] x = new float[2000];
        for (int i = 0; i < x.length; i++) {
            x[i] = -87.0f - 2f * i / x.length;  // [-89, -87]
        }
        float[] y = exp(x, true);
        for (int i = 0; i < x.length; i++) {
            double ref = Math.exp(x[i]);
            assertTrue(Math.abs(y[i] - ref) <= Math.max(1.2e-38, RELATIVE * ref), "exp(" + x[i] + ") = " + y[i]
                + ", Math.exp " + ref);
        }
    }
}
