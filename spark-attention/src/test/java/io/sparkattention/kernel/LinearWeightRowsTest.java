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

    /**
     * Every row of every stacked call (m from 1 to 40, then 64, 129 and 333, at several offsets in
     * x) equals the row computed alone, bit for bit, on both kernels; the shapes include the
     * encoder's projections and outputs narrow enough for OpenBLAS's small-matrix kernel (m·n ≤ 1200).
     */
    @ParameterizedTest(name = "{0} n={1} k={2}")
    @CsvSource({"vector, 1152, 384", "vector, 384, 1536", "vector, 2, 40", "vector, 32, 32",
        "blas, 1152, 384", "blas, 384, 384", "blas, 1536, 384", "blas, 384, 1536", "blas, 96, 32",
        "blas, 32, 32", "blas, 64, 32", "blas, 32, 64", "blas, 2, 40", "blas, 1, 300"})
    void stackedRowsEqualRowsAlone(String kernelName, int n, int k) {
        LinearKernel kernel = LinearKernel.named(kernelName);
        if (kernelName.equals("blas")) {
            org.junit.jupiter.api.Assumptions.assumeTrue(kernel.rowsIndependent(),
                "this BLAS (" + Blas.name() + ", OPENBLAS_CORETYPE=" + Blas.coreType()
                    + ") does not claim independent rows; OpenBlasCoreTypesTest checks that claim");
        }
        Random r = new Random(n * 131L + k);
        LinearWeight weight = LinearWeight.of(kernel, gaussian(r, n * k), n, k, gaussian(r, n));
        assertTrue(weight.rowsIndependent());
        int rows = 400;
        float[] x = gaussian(r, rows * k);
        float[][] alone = new float[rows][];
        for (int i = 0; i < rows; i++) {
            alone[i] = weight.apply(Arrays.copyOfRange(x, i * k, (i + 1) * k), 1);
        }
        java.util.List<Integer> counts = new java.util.ArrayList<>();
        for (int m = 1; m <= 40; m++) {
            counts.add(m);
        }
        counts.addAll(java.util.List.of(64, 129, 333));
        for (int m : counts) {
            for (int offset : new int[] {0, 3, rows - m}) {
                float[] stacked = weight.apply(Arrays.copyOfRange(x, offset * k, (offset + m) * k), m);
                for (int i = 0; i < m; i++) {
                    assertArrayEquals(alone[offset + i], Arrays.copyOfRange(stacked, i * n, (i + 1) * n),
                        kernel.name() + ": row " + i + " of " + m + " from row " + offset);
                }
            }
        }
    }

    private static float[] gaussian(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian();
        }
        return a;
    }
}
