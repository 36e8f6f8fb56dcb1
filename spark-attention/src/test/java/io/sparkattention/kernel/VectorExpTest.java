package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The vectorised exp against {@link Math#exp}. */
class VectorExpTest {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    /** Relative error allowed over the normal range: a few ulp (2⁻²³ ≈ 1.2e-7). */
    private static final double RELATIVE = 4e-7;

    /** exp lane by lane through {@link VectorExp#expShifted}: one key row, shift 0. */
    private static float[] exp(float[] x) {
        return exp(x, false);
    }

    private static float[] exp(float[] x, boolean cap) {
        int n = SPECIES.loopBound(x.length + SPECIES.length() - 1);
        float[] a = new float[n];
        System.arraycopy(x, 0, a, 0, x.length);
        VectorExp.expShifted(a, 0, n, 1, new float[n], 0, n, null, cap);
        return Arrays.copyOf(a, x.length);
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
        float[] y = exp(x);
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
    @DisplayName("edges: exp(0) = 1 exactly, -inf and large negatives give 0, NaN stays NaN, the top of the range is +inf")
    void edges() {
        float[] x = {0f, -0f, Float.NEGATIVE_INFINITY, -1000f, -88.5f, -104f, 88.5f, Float.NaN, -Float.MIN_VALUE,
            Float.MIN_VALUE, -1e-30f};
        float[] y = exp(x);
        assertEquals(1f, y[0]);
        assertEquals(1f, y[1]);
        assertEquals(0f, y[2]);
        assertEquals(0f, y[3]);
        assertTrue(y[4] >= 0f && y[4] < 1e-38f, "exp(-88.5) = " + y[4]);  // true value 4e-39, subnormal
        assertEquals(0f, y[5]);
        assertEquals(Float.POSITIVE_INFINITY, y[6]);
        assertTrue(Float.isNaN(y[7]), "NaN in, NaN out");
        assertEquals(1f, y[8]);
        assertEquals(1f, y[9]);
        assertEquals(1f, y[10]);
    }

    @Test
    @DisplayName("capped (weights from a caller's log-sum-exp): everything above the range is +inf, NaN stays NaN")
    void cappedTop() {
        float[] y = exp(new float[] {88.5f, 89f, 200f, 1e30f, Float.POSITIVE_INFINITY, Float.NaN, -1f}, true);
        for (int i = 0; i < 5; i++) {
            assertEquals(Float.POSITIVE_INFINITY, y[i], "argument " + i);
        }
        assertTrue(Float.isNaN(y[5]));
        assertEquals(Math.exp(-1), y[6], RELATIVE);
    }

    @Test
    @DisplayName("a key-major strip: exp(s - shift) per query column, -inf shift read as 0, column sums added")
    void shiftedColumnsAndSums() {
        int lanes = 2 * SPECIES.length(), w = lanes + 3, nk = 5, xOff = 2;
        SplittableRandom random = new SplittableRandom(11);
        float[] a = new float[1 + nk * w];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) random.nextDouble(-6, 0);
        }
        float[] before = a.clone();
        float[] x = new float[xOff + lanes], sum = new float[xOff + lanes];
        for (int j = 0; j < lanes; j++) {
            x[xOff + j] = j == 3 ? Float.NEGATIVE_INFINITY : (float) random.nextDouble(-2, 2);
            sum[xOff + j] = 0.5f;
        }
        VectorExp.expShifted(a, 1, w, nk, x, xOff, lanes, sum, false);
        for (int j = 0; j < lanes; j++) {
            double shift = j == 3 ? 0 : x[xOff + j], total = 0.5;
            for (int c = 0; c < nk; c++) {
                int i = 1 + c * w + j;
                double ref = Math.exp(before[i] - (float) shift);
                total += ref;
                assertEquals(ref, a[i], RELATIVE * ref, "query " + j + ", key " + c);
            }
            assertEquals(total, sum[xOff + j], 1e-6 * total, "sum of query " + j);
        }
        for (int c = 0; c < nk; c++) {
            for (int j = lanes; j < w; j++) {
                assertEquals(before[1 + c * w + j], a[1 + c * w + j], "lanes past the whole vectors stay untouched");
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
        float[] y = exp(x);
        for (int i = 0; i < x.length; i++) {
            double ref = Math.exp(x[i]);
            assertTrue(Math.abs(y[i] - ref) <= Math.max(1.2e-38, RELATIVE * ref), "exp(" + x[i] + ") = " + y[i]
                + ", Math.exp " + ref);
        }
    }
}
