package io.sparkattention.exec;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FixedOrderAggregate} on a two-executor cluster with leaves of several partitions and
 * groups of several leaves, each group merged in slices: an executor JVM killed (SIGKILL) while the
 * leaves' tasks run loses running tasks, finished leaves' results and cached partitions; Spark
 * re-runs them, and the sum keeps the fault-free bits, which are those of the sequential (unsliced)
 * loop over the leaves and groups.
 */
class FixedOrderAggregateExecutorLossIT {

    private static final int PARTITIONS = 24;
    /** Leaf runs of 3 partitions. */
    private static final int LEAVES = 8;
    /** Groups of 3, 3 and 2 leaves. */
    private static final int MAX_GROUPS = 3;
    /** Each group's merge in 2 slices of a 3-element vector (element j sums the values times j + 1). */
    private static final int SLICES = 2;
    private static final int WIDTH = 3;
    private static final int VALUES = 50;
    /** Each partition's fold waits this long, so the leaves' tasks (4 per executor) outlive the kill. */
    private static final long FOLD_MILLIS = 100;

    private final SparkSession spark = ClusterTestSession.get();
    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());

    @BeforeEach
    void executors() {
        ClusterTestSession.awaitExecutors(spark, ClusterTestSession.EXECUTORS);
    }

    @Test
    @DisplayName("an executor killed during the groups' job: the sum equals the fault-free one and the sequential "
        + "loop, bit for bit")
    void killedExecutor() {
        List<Double> data = values();
        JavaRDD<Double> rows = sc.parallelize(data, PARTITIONS).persist(StorageLevel.MEMORY_AND_DISK());
        try {
            rows.count();
            String expected = bits(sequential(rows.glom().collect()));
            assertEquals(expected, bits(sum(rows)), "fault-free");
            ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
            spark.sparkContext().addSparkListener(killer);
            double[] got;
            try {
                killer.armAtJob(0);
                got = sum(rows);
            } finally {
                spark.sparkContext().removeSparkListener(killer);
            }
            assertNotNull(killer.killedExecutor(), "an executor was killed during the job");
            assertTrue(killer.targetJobName().startsWith("aggregate at FixedOrderAggregateExecutorLossIT.java"),
                killer.targetJobName());
            assertTrue(killer.failedTasks.get() + killer.stageRetries.get() >= 1, "tasks failed or stages were "
                + "re-run: " + killer.failedTasks + " failed tasks, " + killer.stageRetries + " stage retries");
            assertEquals(expected, bits(got), "after the executor loss: " + Arrays.toString(got));
        } finally {
            rows.unpersist(false);
        }
    }

    private static double[] sum(JavaRDD<Double> rows) {
        return FixedOrderAggregate.aggregate(rows, LEAVES, MAX_GROUPS, SLICES, () -> SlicedVector.zero(WIDTH),
            (acc, partition, it) -> {
                Thread.sleep(FOLD_MILLIS);
                while (it.hasNext()) {
                    addRow(acc.values(), it.next());
                }
                return acc;
            }, SlicedVector::add).values();
    }

    private static void addRow(double[] acc, double v) {
        for (int j = 0; j < WIDTH; j++) {
            acc[j] += v * (j + 1);
        }
    }

    private static String bits(double[] v) {
        return Arrays.toString(Arrays.stream(v).mapToLong(Double::doubleToRawLongBits).toArray());
    }

    /**
     * Leaf i sums the values of partitions [⌊i·P/T⌋, ⌊(i+1)·P/T⌋) in order into one running sum
     * from 0; groups of ceil(T / MAX_GROUPS)
     * consecutive leaves' sums are added in order from the first's; the groups in order from 0.
     */
    private static double[] sequential(List<List<Double>> partitions) {
        int p = partitions.size();
        double[][] leaves = new double[LEAVES][WIDTH];
        for (int i = 0; i < LEAVES; i++) {
            for (int q = i * p / LEAVES; q < (i + 1) * p / LEAVES; q++) {
                for (double v : partitions.get(q)) {
                    addRow(leaves[i], v);
                }
            }
        }
        int size = (LEAVES + MAX_GROUPS - 1) / MAX_GROUPS;
        double[] total = new double[WIDTH];
        for (int first = 0; first < LEAVES; first += size) {
            double[] group = leaves[first];
            for (int i = first + 1; i < Math.min(LEAVES, first + size); i++) {
                for (int j = 0; j < WIDTH; j++) {
                    group[j] += leaves[i][j];
                }
            }
            for (int j = 0; j < WIDTH; j++) {
                total[j] += group[j];
            }
        }
        return total;
    }

    /** Signs and magnitudes (1e-8…1e8) from a seed: any other order of addition gives other bits. */
    private static List<Double> values() {
        SplittableRandom random = new SplittableRandom(5);
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < PARTITIONS * VALUES; i++) {
            values.add((random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextDouble(-8, 8)));
        }
        return values;
    }
}
