package io.sparkattention.kernel;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link LinearWeight#rowsIndependent()} promises: every row of a stacked call gets the bits
 * it gets alone, wherever it sits; and {@link LinearWeight#apply(float[], int, float[])} writes
 * what {@link LinearWeight#apply(float[], int)} returns, leaving the rest of y alone.
 */
class LinearWeightRowsTest {

    @ParameterizedTest(name = "n={0} k={1}")
    @CsvSource({"1, 1", "33, 7", "1152, 384", "384, 1536", "40, 300", "512, 600"})
    void theVectorKernelComputesEveryRowAloneAndApplyIntoMatches(int n, int k) {
        LinearKernel vector = LinearKernel.named("vector");
        Random r = new Random(n * 31L + k);
        float[] w = gaussian(r, n * k), b = gaussian(r, n);
        LinearWeight weight = LinearWeight.of(vector, w, n, k, b);
        assertTrue(weight.rowsIndependent());
        int m = 17;
        float[] x = gaussian(r, m * k);
        float[] all = weight.apply(x, m);
        for (int i = 0; i < m; i++) {
            float[] alone = weight.apply(Arrays.copyOfRange(x, i * k, (i + 1) * k), 1);
            assertArrayEquals(alone, Arrays.copyOfRange(all, i * n, (i + 1) * n), "row " + i);
        }
        float[] into = new float[m * n + 5];
        Arrays.fill(into, 7f);
        weight.apply(x, m, into);
        assertArrayEquals(all, Arrays.copyOf(into, m * n));
        assertEquals(7f, into[m * n + 4]);
        LinearWeight noBias = LinearWeight.of(vector, w, n, k, null);
        float[] reused = new float[m * n];
        Arrays.fill(reused, 3f);
        noBias.apply(x, m, reused);
        assertArrayEquals(noBias.apply(x, m), reused, "without a bias, y is overwritten, not added to");
    }

    private static float[] gaussian(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian();
        }
        return a;
    }
}
