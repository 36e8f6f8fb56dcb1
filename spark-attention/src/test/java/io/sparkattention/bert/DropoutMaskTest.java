package io.sparkattention.bert;

import io.sparkattention.kernel.ProbabilityDropout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counter-based dropout masks: a pure function of their key, at the asked rate, scaled 1/(1 − p). */
class DropoutMaskTest {

    @Test
    void keepsAboutOneMinusPAndScalesTheKeptValues() {
        for (double p : new double[] {0.1, 0.5, 0.9}) {
            DropoutMask m = DropoutMask.of(3, 1, 77, DropoutMask.site(2, DropoutMask.ATTENTION_PROBS), p);
            int n = 200_000, kept = 0;
            for (int e = 0; e < n; e++) {
                if (m.keeps(e)) {
                    kept++;
                    assertEquals((float) (1 / (1 - p)), m.factor(e));
                } else {
                    assertEquals(0f, m.factor(e));
                }
            }
            double rate = (double) kept / n, sd = Math.sqrt(p * (1 - p) / n);
            assertTrue(Math.abs(rate - (1 - p)) < 5 * sd, "p = " + p + ": kept " + rate);
        }
        DropoutMask none = DropoutMask.of(1, 1, 1, 1, 0.0);
        for (int e = 0; e < 1000; e++) {
            assertEquals(1f, none.factor(e));
        }
    }

    @Test
    void theSameKeyGivesTheSameMaskAndAnyOtherKeyAnother() {
        long[][] keys = {{1, 0, 5, 3}, {2, 0, 5, 3}, {1, 1, 5, 3}, {1, 0, 6, 3}, {1, 0, 5, 4}};
        String[] masks = new String[keys.length];
        for (int k = 0; k < keys.length; k++) {
            StringBuilder b = new StringBuilder();
            DropoutMask m = DropoutMask.of(keys[k][0], keys[k][1], keys[k][2], (int) keys[k][3], 0.5);
            DropoutMask again = DropoutMask.of(keys[k][0], keys[k][1], keys[k][2], (int) keys[k][3], 0.5);
            for (int e = 0; e < 256; e++) {
                assertEquals(m.keeps(e), again.keeps(e));
                b.append(m.keeps(e) ? '1' : '0');
            }
            masks[k] = b.toString();
        }
        for (int a = 0; a < keys.length; a++) {
            for (int b = a + 1; b < keys.length; b++) {
                assertNotEquals(masks[a], masks[b], "keys " + a + " and " + b);
            }
        }
        float[] x = {1, 1, 1, 1, 1, 1, 1, 1};
        DropoutMask m = DropoutMask.of(9, 9, 9, 9, 0.5);
        m.apply(x, 2, 4, 10);
        for (int i = 0; i < 8; i++) {
            assertEquals(i >= 2 && i < 6 ? m.factor(10 + i - 2) : 1f, x[i]);
        }
        assertThrows(IllegalArgumentException.class, () -> DropoutMask.of(1, 1, 1, 1, 1.0));
        assertThrows(IllegalArgumentException.class, () -> DropoutMask.of(1, 1, 1, 1, -0.1));
    }

    @Test
    void anElementIsKeptExactlyWhenItsUniformDrawReachesP() {
        long key = io.sparkattention.nn.CounterRandom.key(5, 7, 11, 13);
        double[] rates = {0.0, Double.MIN_VALUE, 1e-300, 0x1p-53, 0.1, 0.5, Math.nextDown(1.0)};
        for (double p : rates) {
            DropoutMask m = DropoutMask.of(5, 7, 11, 13, p);
            float[] x = new float[4_000];
            java.util.Arrays.fill(x, 1f);
            long first = Long.MAX_VALUE - 1_000;  // the counter wraps inside the run
            m.apply(x, 0, x.length, first);
            for (int i = 0; i < x.length; i++) {
                long e = first + i;
                boolean kept = io.sparkattention.nn.CounterRandom.uniform(key, e) >= p;
                assertEquals(kept, m.keeps(e), "p = " + p + ", e = " + e);
                assertEquals(kept ? m.scale() : 0f, x[i], "p = " + p + ", e = " + e);
            }
        }
        // A draw exactly at p is kept, one just below it dropped.
        long bits = io.sparkattention.nn.CounterRandom.bits(key);
        double at = bits * 0x1.0p-53;
        assertTrue(DropoutMask.of(5, 7, 11, 13, at).keeps(0));
        if (bits + 1 < (1L << 53)) {
            assertFalse(DropoutMask.of(5, 7, 11, 13, (bits + 1) * 0x1.0p-53).keeps(0));
        }
    }

    @Test
    void theKernelsProbabilityDropoutIsTheSitesRowMajorElementAtItsRate() {
        DropoutMask m = DropoutMask.of(4, 2, 31, DropoutMask.site(1, DropoutMask.ATTENTION_PROBS), 0.1);
        int H = 3, L = 70, S = 131, kept = 0;
        ProbabilityDropout d = m.probabilities(L, S);
        for (int h = 0; h < H; h++) {
            for (int i = 0; i < L; i++) {
                for (int j = 0; j < S; j++) {
                    float f = d.factor(h, i, j);
                    assertEquals(m.factor(((long) h * L + i) * S + j), f);
                    kept += f != 0f ? 1 : 0;
                }
            }
        }
        int n = H * L * S;
        assertEquals(0.9, (double) kept / n, 5 * Math.sqrt(0.09 / n));
        assertThrows(IllegalArgumentException.class, () -> m.probabilities(-1, 3));
    }
}
