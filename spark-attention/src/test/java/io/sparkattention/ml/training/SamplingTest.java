package io.sparkattention.ml.training;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Sampling}: a row is in a step's sample by (seed, step, key) alone. */
class SamplingTest {

    @Test
    @DisplayName("the draw is a pure function of (seed, step, key), and differs when any of them does")
    void pureFunction() {
        double d = Sampling.draw(7, 3, 41);
        assertEquals(d, Sampling.draw(7, 3, 41), 0.0);
        assertNotEquals(d, Sampling.draw(8, 3, 41));
        assertNotEquals(d, Sampling.draw(7, 4, 41));
        assertNotEquals(d, Sampling.draw(7, 3, 42));
        assertNotEquals(Sampling.draw(7, 1, 0), Sampling.draw(7, 0, 1), "step and key are not interchangeable");
    }

    @Test
    @DisplayName("fraction f keeps about f of the rows, a different set each step; fraction 1 keeps every row")
    void keepsTheFraction() {
        int n = 20_000, kept = 0, both = 0;
        for (long key = 0; key < n; key++) {
            boolean now = Sampling.sampled(11, 0, key, 0.25);
            kept += now ? 1 : 0;
            both += now && Sampling.sampled(11, 1, key, 0.25) ? 1 : 0;
            assertTrue(Sampling.sampled(11, 0, key, 1.0));
        }
        // Binomial(20000, 0.25): standard deviation 61; the two steps' overlap ~ 0.0625 n, sd 34.
        assertEquals(0.25 * n, kept, 5 * 61);
        assertEquals(0.0625 * n, both, 5 * 34);
    }

    @Test
    @DisplayName("fine-tuning samples the rows it sampled before the engine (the former BertStepJob's rule)")
    void fineTuningRule() {
        // The former rule, written out: the step's seed mixed with partition index 0, then with the key.
        long seed = -5, step = 2, key = 9;
        long gamma = 0x9E3779B97F4A7C15L;
        long h = mix(mix(seed + gamma * (step + 1)) + gamma);
        h = mix(h + gamma * (key + 1));
        assertEquals((h >>> 11) * 0x1.0p-53, Sampling.draw(seed, step, key), 0.0);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
