package io.sparkattention.ml.training;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A step's sums merged slice by slice ({@link FixedOrderAggregate}'s sliced merge of
 * {@link StepSums}, cut by {@link GradientSums#slice}): the leaves sum their rows in float64, each
 * leaf's dense values travel rounded once to float32 and add in float32 in leaf order, the table
 * rows and scalars travel exact, and the driver adds the merged slices into its float64 total; the
 * same bits for every slice count (odd lengths, more slices than dense values or table rows), equal
 * to that computation written out element by element.
 */
class StepSumsSlicesTest {

    /** bias [3], table A [37, 5], weight [7, 3], table B [11, 2], bias [1]: 25 dense values, both tables sparse. */
    private static final List<ParameterTensor> TENSORS = List.of(ParameterTensor.of("a.bias", 0, 3),
        ParameterTensor.of("a.table", 3, 37, 5), ParameterTensor.of("b.weight", 188, 7, 3),
        ParameterTensor.of("b.table", 209, 11, 2), ParameterTensor.of("c.bias", 231, 1));
    private static final int COUNT = 232;
    private static final GradientLayout LAYOUT = new GradientLayout(TENSORS, new int[] {1, 3});
    /** Rows of the data set; each row flushes a random dense gradient and a few random table rows. */
    private static final int ROWS = 60;

    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());

    @Test
    @DisplayName("every slice count, merged by tasks or on the driver, gives the bits of the element-by-element "
        + "reference: gradients, touched rows, loss, weight, rows, largest task result")
    void slicedEqualsReference() {
        JavaRDD<Integer> rows = sc.parallelize(IntStream.range(0, ROWS).boxed().collect(Collectors.toList()), 7);
        List<List<Integer>> partitions = rows.glom().collect();
        for (int leaves : new int[] {2, 3, 7}) {
            for (int maxGroups : new int[] {1, 2}) {
                Expected reference = reference(partitions, leaves, maxGroups);
                StepSums expected = reference.scalars();
                for (int slices : new int[] {1, 2, 3, 4, 30}) {
                    for (int merge = 0; merge < 4; merge++) {
                        int driverLeaves = merge % 2 == 0 ? 0 : 7;
                        boolean deferred = merge >= 2;
                        StepSums sliced = merged(rows, leaves, maxGroups, slices, driverLeaves, deferred);
                        String where = "leaves " + leaves + ", maxGroups " + maxGroups + ", slices " + slices
                            + (driverLeaves > 0 ? ", merged on the driver" : ", merged by tasks")
                            + (deferred ? " into a deferred total" : "");
                        assertSameBits(reference.flat(), sliced.grad.toFlat(), where);
                        assertEquals(Double.doubleToRawLongBits(expected.loss), Double.doubleToRawLongBits(sliced.loss),
                            where);
                        assertEquals(Double.doubleToRawLongBits(expected.weight),
                            Double.doubleToRawLongBits(sliced.weight), where);
                        assertEquals(ROWS, sliced.rows, where);
                        assertEquals(expected.largestTaskValues, sliced.largestTaskValues, where);
                        assertEquals(expected.grad.touchedRows(0), sliced.grad.touchedRows(0), where);
                        assertEquals(expected.grad.touchedRows(1), sliced.grad.touchedRows(1), where);
                    }
                }
            }
        }
        StepSums one = merged(rows, 1, 1, 1);
        StepSums two = merged(rows, 2, 1, 1);
        assertTrue(!sameBits(one.grad.toFlat(), two.grad.toFlat()), "the data tells leaf layouts apart");
        double[] float32 = merged(rows, 3, 1, 2).grad.toFlat();
        double[] float64 = merged(rows, 3, 3, 1).grad.toFlat();
        assertTrue(!sameBits(float32, float64), "a merge stage's float32 slices round what the leaves summed");
    }

    @Test
    @DisplayName("slices are cut from whole sums only and go back only into their own place")
    void sliceChecks() {
        GradientSums sums = new GradientSums(LAYOUT);
        GradientSums part = sums.slice(1, 3);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> part.slice(0, 2));
        assertEquals("slice needs whole sums, these are slice 1 of 3", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> sums.addSlice(2, 3, part));
        assertThrows(IllegalArgumentException.class, () -> sums.add(part));
        assertThrows(IllegalArgumentException.class, () -> sums.slice(3, 3));
        assertThrows(IllegalArgumentException.class, part::toFlat);
        assertThrows(IllegalArgumentException.class, () -> part.addAndClear(new float[COUNT], 0, 3));
    }

    /** The rows' step sums through the fixed-order aggregate with {@code slices} merge slices (merge tasks). */
    private static StepSums merged(JavaRDD<Integer> rows, int leaves, int maxGroups, int slices) {
        return merged(rows, leaves, maxGroups, slices, 0, false);
    }

    /**
     * {@link #merged(JavaRDD, int, int, int)}, the driver merging up to {@code driverLeaves} leaves' slices itself,
     * into a {@link GradientSums#deferred} total when {@code deferred}.
     */
    private static StepSums merged(JavaRDD<Integer> rows, int leaves, int maxGroups, int slices, int driverLeaves,
                                   boolean deferred) {
        return FixedOrderAggregate.aggregate(rows, leaves, maxGroups, slices, driverLeaves,
            () -> new StepSums(new GradientSums(LAYOUT)),
            () -> new StepSums(deferred ? GradientSums.deferred(LAYOUT) : new GradientSums(LAYOUT)),
            StepSumsSlicesTest::fold, StepSums::add);
    }

    /**
     * The sliced merge written out: leaf i folds partitions [⌊i·P/T⌋, ⌊(i+1)·P/T⌋) in float64; with a
     * merge stage (groups of more than one leaf) each group's dense values are the float32 sum, in
     * leaf order, of its leaves' values rounded to float32, its table rows and scalars the float64
     * sums; the driver adds the groups in order into zero in float64 (without a merge, the leaves).
     */
    private static Expected reference(List<List<Integer>> partitions, int leaves, int maxGroups) {
        int p = partitions.size();
        int t = Math.min(p, leaves);
        StepSums[] leaf = new StepSums[t];
        for (int i = 0; i < t; i++) {
            leaf[i] = new StepSums(new GradientSums(LAYOUT));
            for (int q = i * p / t; q < (i + 1) * p / t; q++) {
                fold(leaf[i], q, partitions.get(q).iterator());
            }
        }
        int size = (t + maxGroups - 1) / maxGroups;
        StepSums total = new StepSums(new GradientSums(LAYOUT));
        double[] flat = new double[COUNT];
        for (int first = 0; first < t; first += size) {
            StepSums group = new StepSums(new GradientSums(LAYOUT)).add(leaf[first]);
            float[] dense = new float[COUNT];
            double[] firstValues = leaf[first].grad.toFlat();
            for (int e = 0; e < COUNT; e++) {
                dense[e] = (float) firstValues[e];
            }
            for (int i = first + 1; i < Math.min(t, first + size); i++) {
                group.add(leaf[i]);
                double[] values = leaf[i].grad.toFlat();
                for (int e = 0; e < COUNT; e++) {
                    dense[e] += (float) values[e];
                }
            }
            total.add(group);
            double[] groupFlat = group.grad.toFlat();
            for (int e = 0; e < COUNT; e++) {
                flat[e] += size == 1 || isTableRow(e) ? groupFlat[e] : dense[e];
            }
        }
        return new Expected(flat, total);
    }

    /** Whether flat position e lies in one of the two tables. */
    private static boolean isTableRow(int e) {
        return (e >= 3 && e < 188) || (e >= 209 && e < 231);
    }

    /** The reference's gradient vector, and its scalars and touched rows (float64 sums, as the merge's). */
    private record Expected(double[] flat, StepSums scalars) {
    }

    /** Each row: a dense gradient of magnitudes 1e-6…1e6, 1 to 4 rows of each table, loss and weight. */
    private static StepSums fold(StepSums sums, int partition, Iterator<Integer> it) {
        while (it.hasNext()) {
            SplittableRandom random = new SplittableRandom(it.next());
            float[] flat = new float[COUNT];
            for (int i = 0; i < COUNT; i++) {
                flat[i] = (float) ((random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextDouble(-6, 6)));
            }
            sums.grad.addAndClear(flat, 0, 3);
            sums.grad.addAndClear(flat, 188, 209);
            sums.grad.addAndClear(flat, 231, 232);
            int[] a = random.ints(1 + random.nextInt(4), 0, 37).distinct().toArray();
            for (int id : a) {
                sums.grad.addRowAndClear(0, id, flat);
            }
            int[] b = random.ints(1 + random.nextInt(4), 0, 11).distinct().toArray();
            for (int id : b) {
                sums.grad.addRowAndClear(1, id, flat);
            }
            sums.loss += random.nextDouble() * 1e3;
            sums.weight += random.nextDouble(0.5, 2);
            sums.rows++;
        }
        sums.grad.trim();
        sums.largestTaskValues = Math.max(sums.largestTaskValues, sums.grad.values());
        return sums;
    }

    private static void assertSameBits(double[] expected, double[] got, String where) {
        assertTrue(sameBits(expected, got), where + ": expected " + java.util.Arrays.toString(expected) + ", got "
            + java.util.Arrays.toString(got));
    }

    private static boolean sameBits(double[] a, double[] b) {
        return a.length == b.length && IntStream.range(0, a.length)
            .allMatch(i -> Double.doubleToRawLongBits(a[i]) == Double.doubleToRawLongBits(b[i]));
    }
}
