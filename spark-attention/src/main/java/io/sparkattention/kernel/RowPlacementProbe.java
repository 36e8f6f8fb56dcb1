package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Measures, once per BLAS library instance, whether a {@link BlasLinearKernel}'s rows are
 * independent: every row of stacked products of {@link #ROW_COUNTS} rows, at two offsets, equals
 * the same row projected alone, bit for bit, on {@link #SHAPES}. The answer is a property of the
 * BLAS build and the kernels it loaded (for OpenBLAS, {@code OPENBLAS_CORETYPE}), not a timing, so
 * like machines answer alike. The shapes and counts cover every edge of OpenBLAS's row blocking
 * (blocks of 12, edges of 8, 4, 2 and 1 rows) with outputs wide enough to stay out of its
 * small-matrix kernel; they take well under a millisecond.
 */
final class RowPlacementProbe {

    /** Output × input features of the probed projections: past the small-matrix cut-off from m = 1 and 4. */
    static final int[][] SHAPES = {{384, 64}, {1200, 40}};

    /** Stacked row counts probed: every edge of a 12-row blocking, and two full blocks plus an edge. */
    static final int[] ROW_COUNTS = {2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 24, 29};

    private static final Map<Object, Boolean> MEASURED = new ConcurrentHashMap<>();

    private RowPlacementProbe() {
    }

    /** Whether {@code kernel}'s stacked rows equal its rows alone; measured once per BLAS library. */
    static boolean rowsIndependent(BlasLinearKernel kernel) {
        return MEASURED.computeIfAbsent(kernel.library(), key -> measure(kernel));
    }

    private static boolean measure(LinearKernel kernel) {
        Random random = new Random(20261205L);
        int most = Arrays.stream(ROW_COUNTS).max().orElse(1) + 1;
        for (int[] shape : SHAPES) {
            int n = shape[0], k = shape[1];
            float[] w = gaussian(random, n * k);
            float[] x = gaussian(random, most * k);
            float[][] alone = new float[most][];
            for (int i = 0; i < most; i++) {
                alone[i] = new float[n];
                kernel.multiplyAdd(1, n, k, Arrays.copyOfRange(x, i * k, (i + 1) * k), w, alone[i], 0);
            }
            for (int m : ROW_COUNTS) {
                for (int offset = 0; offset + m <= most && offset <= 1; offset++) {
                    float[] y = new float[m * n];
                    kernel.multiplyAdd(m, n, k, Arrays.copyOfRange(x, offset * k, (offset + m) * k), w, y, 0);
                    for (int i = 0; i < m; i++) {
                        if (!Arrays.equals(alone[offset + i], 0, n, y, i * n, (i + 1) * n)) {
                            return false;
                        }
                    }
                }
            }
        }
        return true;
    }

    private static float[] gaussian(Random random, int count) {
        float[] a = new float[count];
        for (int i = 0; i < count; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }
}
