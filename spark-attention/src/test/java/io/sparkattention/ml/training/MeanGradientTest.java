package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link MeanGradient}: the step's mean gradient read from its sums a range at a time has the
 * bits of the flat mean divided in place and clipped by {@link GradientClipping#clipByGlobalNorm}.
 */
class MeanGradientTest {

    /**
     * A table [ROWS, 3] between two dense tensors, over five norm chunks and a part: a thread's
     * {@link MeanGradient#CHAINS} chunks, then fewer, the last one short.
     */
    private static final int ROWS = 100_000;
    private static final List<ParameterTensor> TENSORS = List.of(ParameterTensor.of("a", 0, 70_001),
        ParameterTensor.of("table", 70_001, ROWS, 3), ParameterTensor.of("b", 70_001 + 3 * ROWS, 5));
    private static final GradientLayout LAYOUT = new GradientLayout(TENSORS, new int[] {1});

    private static GradientSums sums(Random random) {
        GradientSums sums = new GradientSums(LAYOUT);
        float[] flat = new float[LAYOUT.parameterCount()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = random.nextFloat() - 0.5f;
        }
        sums.addAndClear(flat, 0, 70_001);
        sums.addAndClear(flat, 70_001 + 3 * ROWS, flat.length);
        for (int row : new int[] {0, 17, ROWS - 1}) {
            sums.addRowAndClear(0, row, flat);
        }
        return sums;
    }

    private static double[] read(MeanGradient mean, int chunk) {
        double[] out = new double[mean.length()];
        double[] into = new double[chunk];
        for (int from = 0; from < out.length; from += chunk) {
            int to = Math.min(out.length, from + chunk);
            mean.read(from, to, into);
            System.arraycopy(into, 0, out, from, to - from);
        }
        return out;
    }

    @Test
    @DisplayName("unclipped, each value is sum / weight; clipped, the norm and the values are clipByGlobalNorm's bits")
    void bitsOfTheFlatMean() {
        double weight = 7.25;
        GradientSums sums = sums(new Random(3));
        double[] want = sums.toFlat();
        for (int i = 0; i < want.length; i++) {
            want[i] /= weight;
        }
        assertArrayEquals(want, read(new MeanGradient(sums, weight), 4_099), 0.0);

        for (double maxNorm : new double[] {0.5, 1e6}) {
            double[] clipped = want.clone();
            double norm = GradientClipping.clipByGlobalNorm(clipped, maxNorm);
            MeanGradient mean = new MeanGradient(sums, weight);
            assertEquals(norm, mean.clipByGlobalNorm(maxNorm), 0.0);
            assertArrayEquals(clipped, read(mean, 65_536), 0.0, "maxNorm " + maxNorm);
        }
    }

    @Test
    @DisplayName("over a deferred total (two tasks' sums held, summed as read), the norm and the values have the bits "
        + "of the zeroed total's, on every thread of the pool")
    void deferredTotal() {
        GradientSums first = sums(new Random(4));
        GradientSums second = sums(new Random(5));
        GradientSums zeroed = new GradientSums(LAYOUT).add(first).add(second);
        GradientSums deferred = GradientSums.deferred(LAYOUT).add(first).add(second);
        double weight = 3.5;
        MeanGradient expected = new MeanGradient(zeroed, weight);
        MeanGradient actual = new MeanGradient(deferred, weight);
        assertEquals(Double.doubleToRawLongBits(expected.clipByGlobalNorm(0.5)),
            Double.doubleToRawLongBits(actual.clipByGlobalNorm(0.5)), "the norm");
        double[] want = read(expected, 65_536);
        double[] got = read(actual, 65_536);
        for (int i = 0; i < want.length; i++) {
            assertEquals(Double.doubleToRawLongBits(want[i]), Double.doubleToRawLongBits(got[i]), "value " + i);
        }
    }

    @Test
    @DisplayName("a gradient shorter than one norm chunk, and one of exactly four chunks, have the flat clipping's norm")
    void shortAndWholeGroups() {
        for (int n : new int[] {1, 1_000, 4 * GradientClipping.NORM_CHUNK}) {
            GradientLayout layout = new GradientLayout(List.of(ParameterTensor.of("w", 0, n)), new int[0]);
            GradientSums sums = new GradientSums(layout);
            float[] flat = new float[n];
            Random random = new Random(n);
            for (int i = 0; i < n; i++) {
                flat[i] = random.nextFloat() - 0.5f;
            }
            sums.addAndClear(flat, 0, n);
            double[] want = sums.toFlat();
            double norm = GradientClipping.clipByGlobalNorm(want, 0.25);
            assertEquals(Double.doubleToRawLongBits(norm),
                Double.doubleToRawLongBits(new MeanGradient(sums, 1.0).clipByGlobalNorm(0.25)), "n = " + n);
        }
    }
}
