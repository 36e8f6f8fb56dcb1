package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link LeafBuffers}: leaf tasks reuse their thread's dense buffer, and no result sees another's values. */
class LeafBuffersTest {

    /** A weight [4, 8] and an embedding table [10, 3] (row-sparse). */
    private static final GradientLayout LAYOUT = new GradientLayout(List.of(
        ParameterTensor.of("weight", 0, 4, 8), ParameterTensor.of("embeddings.weight", 32, 10, 3)), new int[] {1});
    private static final int COUNT = 32 + 30;

    /** Partition p's gradient: p + 1 in every dense value and in table row p % 10. */
    private static float[] gradientOf(int p) {
        float[] flat = new float[COUNT];
        java.util.Arrays.fill(flat, 0, 32, p + 1);
        java.util.Arrays.fill(flat, 32 + (p % 10) * 3, 32 + (p % 10) * 3 + 3, p + 1);
        return flat;
    }

    @Test
    @DisplayName("every leaf task's sums start at zero on its thread's buffer, and each result keeps its own values")
    void reusedBuffersKeepResultsApart() {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());
        int partitions = 12;
        List<Integer> ids = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            ids.add(p);
        }
        JavaRDD<Integer> rdd = sc.parallelize(ids, partitions);
        GradientLayout layout = LAYOUT;
        List<GradientSums> results = rdd.mapPartitions(it -> {
            int p = it.next();
            GradientSums sums = LeafBuffers.emptySums(layout);
            if (sums.values() != 32 || !allZero(sums.toFlat())) {
                throw new IllegalStateException("partition " + p + ": the reused buffer was not empty");
            }
            float[] flat = gradientOf(p);
            sums.addAndClear(flat, 0, 32);
            sums.addRowAndClear(0, p % 10, flat);
            sums.trim();
            return Collections.singletonList(sums).iterator();
        }).collect();
        for (int p = 0; p < partitions; p++) {
            double[] expected = new double[COUNT];
            float[] flat = gradientOf(p);
            for (int i = 0; i < COUNT; i++) {
                expected[i] = flat[i];
            }
            assertArrayEquals(expected, results.get(p).toFlat(), 0.0, "partition " + p);
        }
    }

    @Test
    @DisplayName("a thread's next sums take its buffer zeroed; a buffer of another length is refused")
    void nextSumsReuseTheThreadsBuffer() {
        GradientSums a = LeafBuffers.emptySums(LAYOUT);
        float[] flat = gradientOf(3);
        a.addAndClear(flat, 0, 32);
        a.addRowAndClear(0, 3, flat);
        GradientSums b = LeafBuffers.emptySums(LAYOUT);
        assertArrayEquals(new double[COUNT], b.toFlat(), 0.0, "the next sums start at zero");
        assertArrayEquals(new double[32], java.util.Arrays.copyOf(a.toFlat(), 32), 0.0,
            "over the same dense buffer: the earlier sums' dense part is zero now");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new GradientSums(LAYOUT, new double[31]));
        assertEquals("dense buffer has 31 values, expected 32", e.getMessage());
    }

    private static boolean allZero(double[] v) {
        for (double x : v) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }
}
