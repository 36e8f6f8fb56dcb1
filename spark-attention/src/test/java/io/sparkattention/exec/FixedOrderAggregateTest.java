package io.sparkattention.exec;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
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
 * {@link FixedOrderAggregate}: one task per partition, the partitions' results combined in index
 * order within groups of consecutive partitions, the groups combined in order on the driver; the
 * same bits as a sequential loop in that order, whatever order the tasks finish in; one task per
 * partition and one driver-side result per group.
 */
class FixedOrderAggregateTest {

    private static final int PARTITIONS = 23;
    private static final int MAX_GROUPS = 5;
    /** Values per partition; their magnitudes span 1e-8…1e8, so any change of order changes the sum's bits. */
    private static final int VALUES = 40;
    private static final int WIDTH = 3;

    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());

    @Test
    @DisplayName("partitions per group: ceil(P / maxGroups); P <= maxGroups gives one partition per group")
    void groupSizes() {
        assertEquals(5, FixedOrderAggregate.groupSize(23, 5));
        assertEquals(5, FixedOrderAggregate.groupCount(23, 5), "5, 5, 5, 5 and 3 partitions");
        assertEquals(20, FixedOrderAggregate.groupSize(256, 13));
        assertEquals(13, FixedOrderAggregate.groupCount(256, 20));
        assertEquals(1, FixedOrderAggregate.groupSize(4, 13));
        assertEquals(4, FixedOrderAggregate.groupCount(4, 1));
        assertEquals(1, FixedOrderAggregate.groupSize(7, 7));
        assertEquals(2, FixedOrderAggregate.groupSize(8, 7));
        assertEquals(4, FixedOrderAggregate.groupCount(8, 2), "never more groups than maxGroups");
    }

    @Test
    @DisplayName("every partition is folded once from a new accumulator with its own index, combined in increasing "
        + "order within its group, and the groups reach the driver in order (empty partitions included)")
    void foldOrder() {
        JavaRDD<Integer> rows = sc.parallelize(List.of(1, 2, 3), 10);
        String order = FixedOrderAggregate.aggregate(rows, 4, () -> "",
            (acc, partition, it) -> acc + "<" + partition + ">",
            (total, next) -> total + (total.isEmpty() || total.endsWith("|") ? "" : ",") + next + (next.contains(",")
                || next.equals("<9>") ? "|" : ""));
        assertEquals("<0>,<1>,<2>|<3>,<4>,<5>|<6>,<7>,<8>|<9>|", order, "groups of ceil(10 / 4) = 3 partitions");
        String direct = FixedOrderAggregate.aggregate(rows, 10, () -> "", (acc, partition, it) -> acc + partition,
            (total, next) -> total + "+" + next);
        assertEquals("+0+1+2+3+4+5+6+7+8+9", direct, "P <= maxGroups: the driver combines the partitions in order");
    }

    @Test
    @DisplayName("the sum equals, bit for bit, the sequential loop over groups of consecutive partitions in index "
        + "order, which differs from other orders")
    void sequentialReference() {
        JavaRDD<double[]> rows = values();
        double[] got = sum(rows, MAX_GROUPS, 0);
        List<List<double[]>> partitions = rows.glom().collect();
        double[] expected = sequential(partitions, FixedOrderAggregate.groupSize(PARTITIONS, MAX_GROUPS));
        assertBitsEqual(expected, got);
        assertFalse(sameBits(expected, sequential(partitions, 1)), "the data is order-sensitive: one partition per "
            + "group sums to other bits");
        List<List<double[]>> reversed = new ArrayList<>(partitions);
        java.util.Collections.reverse(reversed);
        assertFalse(sameBits(expected, sequential(reversed,
            FixedOrderAggregate.groupSize(PARTITIONS, MAX_GROUPS))), "and so does the reverse order");
    }

    @Test
    @DisplayName("the bits do not depend on the order the tasks finish in: groups finishing first to last and last "
        + "to first give the same sum")
    void independentOfTaskTiming() throws Exception {
        JavaRDD<double[]> rows = values().cache();
        try {
            rows.count();
            TaskOrder forward = new TaskOrder();
            sc.sc().addSparkListener(forward);
            double[] early;
            try {
                early = sum(rows, MAX_GROUPS, +1);
            } finally {
                sc.sc().removeSparkListener(forward);
            }
            TaskOrder backward = new TaskOrder();
            sc.sc().addSparkListener(backward);
            double[] late;
            try {
                late = sum(rows, MAX_GROUPS, -1);
            } finally {
                sc.sc().removeSparkListener(backward);
            }
            sc.sc().listenerBus().waitUntilEmpty();
            assertEquals(PARTITIONS + MAX_GROUPS, forward.finished.size(), "one task per partition and per group: "
                + forward.finished);
            assertNotEquals(forward.partitionOrder(), backward.partitionOrder(),
                "the partitions finished in different orders");
            assertBitsEqual(early, late);
            assertTrue(forward.stageName.startsWith("aggregate at FixedOrderAggregateTest.java:"),
                "the job is named after the caller: " + forward.stageName);
        } finally {
            rows.unpersist(true);
        }
    }

    @Test
    @DisplayName("no partitions: the empty accumulator; maxGroups below 1 is refused")
    void edges() {
        JavaRDD<double[]> none = sc.emptyRDD();
        assertArrayEquals(new double[WIDTH], sum(none, MAX_GROUPS, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> FixedOrderAggregate.aggregate(values(), 0, () -> 0, (acc, p, it) -> acc, Integer::sum));
        assertEquals("maxGroups must be >= 1, got 0", e.getMessage());
    }

    /**
     * Σ of the rows' vectors. {@code delay} staggers the partitions: +1 makes partition p sleep p·10 ms
     * before folding (the first partition finishes first), −1 makes it sleep (P − 1 − p)·10 ms.
     */
    private static double[] sum(JavaRDD<double[]> rows, int maxGroups, int delay) {
        int partitions = rows.getNumPartitions();
        return FixedOrderAggregate.aggregate(rows, maxGroups, () -> new double[WIDTH], (acc, partition, it) -> {
            if (delay != 0) {
                Thread.sleep(10L * (delay > 0 ? partition : partitions - 1 - partition));
            }
            return add(acc, it);
        }, FixedOrderAggregateTest::addInto);
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
     * The reference: each partition summed in order from 0; groups of {@code size} consecutive
     * partitions' sums added in order from the first's; the groups added in order from 0.
     */
    private static double[] sequential(List<List<double[]>> partitions, int size) {
        double[] total = new double[WIDTH];
        for (int first = 0; first < partitions.size(); first += size) {
            double[] group = add(new double[WIDTH], partitions.get(first).iterator());
            for (int p = first + 1; p < Math.min(partitions.size(), first + size); p++) {
                addInto(group, add(new double[WIDTH], partitions.get(p).iterator()));
            }
            addInto(total, group);
        }
        return total;
    }

    /** PARTITIONS partitions of VALUES vectors of WIDTH values, signs and magnitudes (1e-8…1e8) drawn from a seed. */
    private JavaRDD<double[]> values() {
        SplittableRandom random = new SplittableRandom(11);
        List<double[]> rows = new ArrayList<>();
        for (int i = 0; i < PARTITIONS * VALUES; i++) {
            double[] v = new double[WIDTH];
            for (int j = 0; j < WIDTH; j++) {
                v[j] = (random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextDouble(-8, 8));
            }
            rows.add(v);
        }
        return sc.parallelize(rows, PARTITIONS);
    }

    private static void assertBitsEqual(double[] expected, double[] got) {
        assertTrue(sameBits(expected, got), "expected " + java.util.Arrays.toString(expected) + ", got "
            + java.util.Arrays.toString(got));
    }

    private static boolean sameBits(double[] a, double[] b) {
        return a.length == b.length && IntStream.range(0, a.length)
            .allMatch(i -> Double.doubleToRawLongBits(a[i]) == Double.doubleToRawLongBits(b[i]));
    }

    /** The order in which a job's tasks finish (stage, partition), and the last stage's name. */
    private static final class TaskOrder extends SparkListener {
        final List<int[]> finished = new CopyOnWriteArrayList<>();
        volatile String stageName = "";

        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted event) {
            stageName = event.stageInfo().name();
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd event) {
            finished.add(new int[] {event.stageId(), event.taskInfo().index()});
        }

        /** The partitions' tasks (the job's first stage), in the order they finished. */
        List<Integer> partitionOrder() {
            int first = finished.stream().mapToInt(t -> t[0]).min().orElse(-1);
            return finished.stream().filter(t -> t[0] == first).map(t -> t[1]).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return finished.stream().map(t -> t[0] + "." + t[1]).collect(Collectors.joining(","));
        }
    }
}
