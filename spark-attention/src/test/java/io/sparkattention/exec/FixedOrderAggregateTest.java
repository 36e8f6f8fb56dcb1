package io.sparkattention.exec;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FixedOrderAggregate}: T = min(P, leaves) leaf tasks each folding a run of consecutive
 * partitions into one accumulator, the leaves combined in index order within groups of consecutive
 * leaves, the groups combined in order on the driver; the same bits as the documented sequential
 * loop for many (P, T, G), whatever order the tasks finish in; one task per leaf and per group, and
 * no shuffle when every leaf is its own group; a merge cut into S slices gives the bits of the
 * whole merge, in one task per group and slice.
 */
class FixedOrderAggregateTest {

    private static final int PARTITIONS = 23;
    private static final int LEAVES = 8;
    private static final int MAX_GROUPS = 3;
    /** Values per partition; their magnitudes span 1e-8…1e8, so any change of order changes the sum's bits. */
    private static final int VALUES = 40;
    private static final int WIDTH = 3;

    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());

    @Test
    @DisplayName("layout: leaf runs of ⌊i·P/T⌋ partitions, groups of ceil(T / maxGroups) leaves, slots × 2 leaves")
    void layout() {
        assertEquals(List.of(0, 2, 5, 7, 10), IntStream.rangeClosed(0, 4)
            .mapToObj(i -> FixedOrderAggregate.runStart(i, 10, 4)).collect(Collectors.toList()), "2, 3, 2 and 3");
        assertEquals(List.of(0, 64, 128, 192, 256), IntStream.rangeClosed(0, 4)
            .mapToObj(i -> FixedOrderAggregate.runStart(i, 256, 4)).collect(Collectors.toList()));
        assertEquals(List.of(0, 1, 2, 3), IntStream.rangeClosed(0, 3)
            .mapToObj(i -> FixedOrderAggregate.runStart(i, 3, 3)).collect(Collectors.toList()), "T = P: one each");
        assertEquals(5, FixedOrderAggregate.groupSize(23, 5));
        assertEquals(5, FixedOrderAggregate.groupCount(23, 5), "5, 5, 5, 5 and 3 leaves");
        assertEquals(1, FixedOrderAggregate.groupSize(4, 13));
        assertEquals(4, FixedOrderAggregate.groupCount(8, 2), "never more groups than maxGroups");
        assertEquals(4, FixedOrderAggregate.leaves(2));
        assertEquals(2000, FixedOrderAggregate.leaves(1000));
        assertEquals(Integer.MAX_VALUE, FixedOrderAggregate.leaves(Integer.MAX_VALUE));
        assertEquals(2 * FixedOrderAggregate.LEAVES_PER_SLOT, FixedOrderAggregate.leaves(2));
    }

    @Test
    @DisplayName("endsLeaf is true exactly on the last partition of each leaf's run, for every P and leaf bound")
    void endsLeaf() {
        for (int partitions = 1; partitions <= 40; partitions++) {
            for (int leaves = 1; leaves <= 12; leaves++) {
                int leafCount = Math.min(partitions, leaves);
                List<Integer> ends = new ArrayList<>();
                for (int i = 1; i <= leafCount; i++) {
                    ends.add(FixedOrderAggregate.runStart(i, partitions, leafCount) - 1);
                }
                for (int p = 0; p < partitions; p++) {
                    assertEquals(ends.contains(p), FixedOrderAggregate.endsLeaf(p, partitions, leaves),
                        "partition " + p + " of " + partitions + ", leaves " + leaves);
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> FixedOrderAggregate.endsLeaf(3, 3, 2), "past the last");
        assertThrows(IllegalArgumentException.class, () -> FixedOrderAggregate.endsLeaf(0, 3, 0), "no leaf");
    }

    @Test
    @DisplayName("a leaf folds its run's partitions into one accumulator in index order, the leaves are combined in "
        + "order within their group and the groups reach the driver in order (empty partitions included)")
    void foldOrder() {
        JavaRDD<Integer> rows = sc.parallelize(List.of(1, 2, 3), 10);
        String tree = FixedOrderAggregate.aggregate(rows, 4, 2, () -> "",
            (acc, partition, it) -> acc + "<" + partition + ">",
            (total, next) -> total + "(" + next + ")");
        assertEquals("(<0><1>(<2><3><4>))(<5><6>(<7><8><9>))", tree,
            "leaves [0,2) [2,5) [5,7) [7,10); groups of 2 leaves, each the first leaf's accumulator");
        String direct = FixedOrderAggregate.aggregate(rows, 100, 10, () -> "", (acc, partition, it) -> acc + partition,
            (total, next) -> total + "+" + next);
        assertEquals("+0+1+2+3+4+5+6+7+8+9", direct, "T = P <= maxGroups: the driver combines the partitions in order");
        String one = FixedOrderAggregate.aggregate(rows, 1, 1, () -> "", (acc, partition, it) -> acc + partition,
            (total, next) -> total + "+" + next);
        assertEquals("+0123456789", one, "one leaf folds every partition");
    }

    @Test
    @DisplayName("the sum equals, bit for bit, the documented sequential loop for many (P, T, G), and the data tells "
        + "the layouts apart")
    void sequentialReference() {
        SplittableRandom random = new SplittableRandom(11);
        for (int partitions : new int[] {1, 2, 7, 23}) {
            JavaRDD<double[]> rows = values(random, partitions);
            List<List<double[]>> parts = rows.glom().collect();
            for (int leaves : new int[] {1, 3, 4, 8, 64}) {
                for (int maxGroups : new int[] {1, 2, 5, 100}) {
                    double[] expected = sequential(parts, leaves, maxGroups);
                    double[] got = sum(rows, leaves, maxGroups, 0);
                    assertTrue(sameBits(expected, got), "P " + partitions + ", leaves " + leaves + ", maxGroups "
                        + maxGroups + ": expected " + java.util.Arrays.toString(expected) + ", got "
                        + java.util.Arrays.toString(got));
                }
            }
        }
        List<List<double[]>> parts = values(random, PARTITIONS).glom().collect();
        double[] reference = sequential(parts, LEAVES, MAX_GROUPS);
        assertFalse(sameBits(reference, sequential(parts, PARTITIONS, MAX_GROUPS)), "one partition per leaf differs");
        assertFalse(sameBits(reference, sequential(parts, LEAVES, 1)), "one group differs");
        List<List<double[]>> reversed = new ArrayList<>(parts);
        java.util.Collections.reverse(reversed);
        assertFalse(sameBits(reference, sequential(reversed, LEAVES, MAX_GROUPS)), "the reverse order differs");
    }

    @Test
    @DisplayName("the bits do not depend on the order the tasks finish in; one task per leaf and per group")
    void independentOfTaskTiming() throws Exception {
        JavaRDD<double[]> rows = values(new SplittableRandom(5), PARTITIONS).cache();
        try {
            rows.count();
            TaskOrder forward = new TaskOrder();
            double[] early = watched(forward, () -> sum(rows, LEAVES, MAX_GROUPS, +1));
            TaskOrder backward = new TaskOrder();
            double[] late = watched(backward, () -> sum(rows, LEAVES, MAX_GROUPS, -1));
            assertEquals(LEAVES + MAX_GROUPS, forward.finished.size(), "one task per leaf and per group: " + forward);
            assertEquals(2, forward.stages.size(), "the leaves' stage and the groups' stage");
            assertNotEquals(forward.leafOrder(), backward.leafOrder(), "the leaves finished in different orders");
            assertBitsEqual(early, late);
            assertBitsEqual(sequential(rows.glom().collect(), LEAVES, MAX_GROUPS), early);
            assertTrue(forward.stageName.startsWith("aggregate at FixedOrderAggregateTest.java:"),
                "the job is named after the caller: " + forward.stageName);
            TaskOrder direct = new TaskOrder();
            watched(direct, () -> sum(rows, LEAVES, LEAVES, 0));
            assertEquals(1, direct.stages.size(), "T <= maxGroups: one stage, no shuffle");
            assertEquals(LEAVES, direct.finished.size(), "one task per leaf: " + direct);
        } finally {
            rows.unpersist(true);
        }
    }

    @Test
    @DisplayName("a merge cut into S slices (S above the elements too) gives, bit for bit, the unsliced loop's sum, "
        + "in one task per group and slice, or on the driver for up to driverLeaves leaves")
    void slicedMerge() throws Exception {
        SplittableRandom random = new SplittableRandom(13);
        for (int partitions : new int[] {1, 7, 23}) {
            JavaRDD<double[]> rows = values(random, partitions);
            List<List<double[]>> parts = rows.glom().collect();
            for (int leaves : new int[] {1, 3, 8}) {
                for (int maxGroups : new int[] {1, 2, 100}) {
                    double[] expected = sequential(parts, leaves, maxGroups);
                    for (int slices : new int[] {1, 2, WIDTH, WIDTH + 2}) {
                        double[] got = slicedSum(rows, leaves, maxGroups, slices);
                        assertTrue(sameBits(got, slicedSum(rows, leaves, maxGroups, slices, leaves)),
                            "merged on the driver: P " + partitions + ", leaves " + leaves + ", maxGroups "
                                + maxGroups);
                        assertTrue(sameBits(expected, got), "P " + partitions + ", leaves " + leaves + ", maxGroups "
                            + maxGroups + ", slices " + slices + ": expected " + java.util.Arrays.toString(expected)
                            + ", got " + java.util.Arrays.toString(got));
                    }
                }
            }
        }
        JavaRDD<double[]> rows = values(random, PARTITIONS);
        TaskOrder sliced = new TaskOrder();
        watched(sliced, () -> slicedSum(rows, LEAVES, MAX_GROUPS, 2));
        assertEquals(LEAVES + MAX_GROUPS * 2, sliced.finished.size(), "one task per leaf, group and slice: " + sliced);
        assertEquals(2, sliced.stages.size(), "the leaves' stage and the merge's stage");
        TaskOrder onDriver = new TaskOrder();
        double[] merged = watched(onDriver, () -> slicedSum(rows, LEAVES, MAX_GROUPS, 2, LEAVES));
        assertTrue(sameBits(slicedSum(rows, LEAVES, MAX_GROUPS, 2), merged), "the driver's merge has the tasks' bits");
        assertEquals(LEAVES, onDriver.finished.size(), "up to driverLeaves leaves, the driver merges: " + onDriver);
        assertEquals(1, onDriver.stages.size(), "the leaves' stage alone");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> slicedSum(rows, 1, 1, 0));
        assertEquals("slices must be >= 1, got 0", e.getMessage());
        assertEquals(2 * FixedOrderAggregate.SLICES_PER_SLOT, FixedOrderAggregate.slices(2));
    }

    @Test
    @DisplayName("no partitions: the empty accumulator; leaves or maxGroups below 1, slots below 1 are refused")
    void edges() {
        JavaRDD<double[]> none = sc.emptyRDD();
        assertArrayEquals(new double[WIDTH], sum(none, LEAVES, MAX_GROUPS, 0));
        JavaRDD<Integer> some = sc.parallelize(List.of(1, 2), 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> FixedOrderAggregate.aggregate(some, 1, 0, () -> 0, (acc, p, it) -> acc, Integer::sum));
        assertEquals("maxGroups must be >= 1, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> FixedOrderAggregate.aggregate(some, 0, 1, () -> 0, (acc, p, it) -> acc, Integer::sum));
        assertEquals("leaves must be >= 1, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FixedOrderAggregate.leaves(0));
        assertEquals("slots must be >= 1, got 0", e.getMessage());
    }

    private double[] watched(TaskOrder listener, java.util.function.Supplier<double[]> job) throws Exception {
        sc.sc().addSparkListener(listener);
        try {
            return job.get();
        } finally {
            sc.sc().listenerBus().waitUntilEmpty();
            sc.sc().removeSparkListener(listener);
        }
    }

    /**
     * Σ of the rows' vectors. {@code delay} staggers the partitions: +1 makes partition p sleep p·10 ms
     * before folding (the first leaf finishes first), −1 makes it sleep (P − 1 − p)·10 ms.
     */
    private static double[] sum(JavaRDD<double[]> rows, int leaves, int maxGroups, int delay) {
        int partitions = rows.getNumPartitions();
        return FixedOrderAggregate.aggregate(rows, leaves, maxGroups, () -> new double[WIDTH], (acc, partition, it) -> {
            if (delay != 0) {
                Thread.sleep(10L * (delay > 0 ? partition : partitions - 1 - partition));
            }
            return add(acc, it);
        }, FixedOrderAggregateTest::addInto);
    }

    /** Σ of the rows' vectors, the merge cut into {@code slices} slices of {@link SlicedVector}s. */
    private static double[] slicedSum(JavaRDD<double[]> rows, int leaves, int maxGroups, int slices) {
        return slicedSum(rows, leaves, maxGroups, slices, 0);
    }

    /** {@link #slicedSum(JavaRDD, int, int, int)}, the driver merging up to {@code driverLeaves} leaves' slices. */
    private static double[] slicedSum(JavaRDD<double[]> rows, int leaves, int maxGroups, int slices, int driverLeaves) {
        return FixedOrderAggregate.aggregate(rows, leaves, maxGroups, slices, driverLeaves,
            () -> SlicedVector.zero(WIDTH), () -> SlicedVector.zero(WIDTH),
            (acc, partition, it) -> {
                add(acc.values(), it);
                return acc;
            }, SlicedVector::add).values();
    }

    private static double[] add(double[] acc, Iterator<double[]> it) {
        while (it.hasNext()) {
            addInto(acc, it.next());
        }
        return acc;
    }

    private static double[] addInto(double[] total, double[] v) {
        for (int i = 0; i < total.length; i++) {
            total[i] += v[i];
        }
        return total;
    }

    /**
     * The documented loop, written out independently: T = min(P, leaves) leaves, leaf i summing
     * partitions [⌊i·P/T⌋, ⌊(i+1)·P/T⌋) in order from 0; groups of ceil(T / maxGroups) consecutive
     * leaves added in order from the first's; the groups added in order from 0.
     */
    private static double[] sequential(List<List<double[]>> partitions, int leaves, int maxGroups) {
        int p = partitions.size();
        int t = Math.min(p, leaves);
        double[][] leafSums = new double[t][];
        for (int i = 0; i < t; i++) {
            leafSums[i] = new double[WIDTH];
            for (int q = (int) ((long) i * p / t); q < (int) ((long) (i + 1) * p / t); q++) {
                add(leafSums[i], partitions.get(q).iterator());
            }
        }
        int size = (t + maxGroups - 1) / maxGroups;
        double[] total = new double[WIDTH];
        for (int first = 0; first < t; first += size) {
            double[] group = leafSums[first];
            for (int i = first + 1; i < Math.min(t, first + size); i++) {
                addInto(group, leafSums[i]);
            }
            addInto(total, group);
        }
        return total;
    }

    /** {@code partitions} partitions of VALUES vectors of WIDTH values, signs and magnitudes (1e-8…1e8) from random. */
    private JavaRDD<double[]> values(SplittableRandom random, int partitions) {
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < partitions * VALUES; i++) {
            double[] v = new double[WIDTH];
            for (int j = 0; j < WIDTH; j++) {
                v[j] = (random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextDouble(-8, 8));
            }
            rows.add(v);
        }
        return sc.parallelize(rows, partitions);
    }

    private static void assertBitsEqual(double[] expected, double[] got) {
        assertTrue(sameBits(expected, got), "expected " + java.util.Arrays.toString(expected) + ", got "
            + java.util.Arrays.toString(got));
    }

    private static boolean sameBits(double[] a, double[] b) {
        return a.length == b.length && IntStream.range(0, a.length)
            .allMatch(i -> Double.doubleToRawLongBits(a[i]) == Double.doubleToRawLongBits(b[i]));
    }

    /** The order in which a job's tasks finish (stage, task index), its stages, and the last stage's name. */
    private static final class TaskOrder extends SparkListener {
        final List<int[]> finished = new CopyOnWriteArrayList<>();
        final List<Integer> stages = new CopyOnWriteArrayList<>();
        volatile String stageName = "";

        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted event) {
            stageName = event.stageInfo().name();
        }

        @Override
        public void onStageCompleted(SparkListenerStageCompleted event) {
            stages.add(event.stageInfo().stageId());
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd event) {
            finished.add(new int[] {event.stageId(), event.taskInfo().index()});
        }

        /** The leaves' tasks (the job's first stage), in the order they finished. */
        List<Integer> leafOrder() {
            int first = finished.stream().mapToInt(t -> t[0]).min().orElse(-1);
            return finished.stream().filter(t -> t[0] == first).map(t -> t[1]).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return finished.stream().map(t -> t[0] + "." + t[1]).collect(Collectors.joining(","));
        }
    }
}
