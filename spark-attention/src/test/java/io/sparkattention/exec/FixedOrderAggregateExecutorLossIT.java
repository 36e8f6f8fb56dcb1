package io.sparkattention.exec;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link FixedOrderAggregate} on a two-executor cluster with groups of several partitions: an
 * executor JVM killed (SIGKILL) while the partitions' tasks run loses running tasks, finished
 * partitions' results and cached partitions; Spark re-runs them, and the sum keeps the fault-free
 * bits, which are those of the sequential loop over the partitions and groups.
 */
class FixedOrderAggregateExecutorLossIT {

    private static final int PARTITIONS = 12;
    private static final int MAX_GROUPS = 3;
    private static final int VALUES = 50;
    /** Each partition's fold waits this long, so the partitions' tasks (6 per executor) outlive the kill. */
    private static final long FOLD_MILLIS = 150;

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
            long expected = Double.doubleToRawLongBits(sequential(rows.glom().collect()));
            assertEquals(expected, Double.doubleToRawLongBits(sum(rows)), "fault-free");
            ExecutorKiller killer = new ExecutorKiller(spark.sparkContext().applicationId());
            spark.sparkContext().addSparkListener(killer);
            double got;
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
            assertEquals(expected, Double.doubleToRawLongBits(got), "after the executor loss: " + got);
        } finally {
            rows.unpersist(false);
        }
    }

    private static double sum(JavaRDD<Double> rows) {
        return FixedOrderAggregate.aggregate(rows, MAX_GROUPS, () -> 0.0, (acc, partition, it) -> {
            Thread.sleep(FOLD_MILLIS);
            double s = acc;
            while (it.hasNext()) {
                s += it.next();
            }
            return s;
        }, Double::sum);
    }

    /**
     * Each partition summed from 0 in order; groups of ceil(P / MAX_GROUPS) consecutive partitions'
     * sums added in order from the first's; the groups added in order from 0.
     */
    private static double sequential(List<List<Double>> partitions) {
        int size = FixedOrderAggregate.groupSize(partitions.size(), MAX_GROUPS);
        double total = 0;
        for (int first = 0; first < partitions.size(); first += size) {
            double group = partitionSum(partitions.get(first));
            for (int p = first + 1; p < Math.min(partitions.size(), first + size); p++) {
                group += partitionSum(partitions.get(p));
            }
            total += group;
        }
        return total;
    }

    private static double partitionSum(List<Double> values) {
        double s = 0;
        for (double v : values) {
            s += v;
        }
        return s;
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
