package io.sparkattention.exec;

import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function0;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function3;
import scala.Tuple2;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * An aggregate of an RDD whose result depends on the data and the partitioning only, never on
 * which task finishes first, summed up a fixed-order tree: partitions, then groups, then the
 * driver. Every partition is its own task, so a step uses every core, while the driver holds a
 * bounded number of partial results.
 *
 * <p>The P partitions are cut into G groups of {@code size = ceil(P / maxGroups)} consecutive
 * partitions (the last group may be shorter). The result is, bit for bit, that of this sequential
 * loop, whatever the scheduling, retries or executor losses (as long as a recomputed partition
 * gives its rows in the same order: a cached or deterministic input does):
 * <pre>
 *   part(p)  = fold(zero(), p, rows of partition p)            one task per partition
 *   for g in 0 .. G−1:                                          one task per group
 *       acc(g) = part(first p of g)
 *       for the next p of group g, increasing:  acc(g) = combine(acc(g), part(p))
 *   total = zero()
 *   for g in 0 .. G−1:  total = combine(total, acc(g))          on the driver
 * </pre>
 * With {@code P ≤ maxGroups} every partition is its own group and the driver combines the
 * partitions' results directly (one stage, no shuffle).
 *
 * <p>How: the partitions' results go through one shuffle keyed by partition index to G group
 * tasks, which receive them sorted by that index (Spark's sorter, which spills to disk when its
 * memory is short) and combine them in that order; the driver collects the G results in group
 * order. Spark's {@code aggregate}, {@code fold} and {@code treeAggregate} do not fix the order:
 * their driver-side merge ({@code RDD.fold}'s result handler) and {@code treeAggregate}'s
 * {@code foldByKey} levels combine partial results in the order tasks finish or shuffle blocks
 * arrive, so a floating-point sum changes with the timing. A lost partition result is recomputed
 * by Spark's stage retry from the partition's cached blocks or lineage, and gives the same bits.
 *
 * <p>Memory: the driver holds the G ≤ {@code maxGroups} group results plus the total; a partition
 * task holds its own accumulator; a group task its running accumulator and the sorted results.
 * The shuffle carries P accumulators.
 */
public final class FixedOrderAggregate {

    /** Spark's local property for a job's short call site ({@code CallSite.SHORT_FORM}). */
    private static final String CALL_SITE_SHORT = "callSite.short";

    private FixedOrderAggregate() {
    }

    /**
     * The aggregate of {@code rows} in the fixed order above, in one Spark job. The job is named
     * after the caller's source line, as Spark names jobs after the user code that starts them.
     *
     * @param rows      the partitioned data
     * @param maxGroups G's bound, ≥ 1: the number of partial results the driver may hold
     * @param zero      a new, empty accumulator (called on the executors and on the driver)
     * @param fold      adds a partition's rows into a new accumulator and returns it (or a new
     *                  one); given the partition's index in {@code rows}
     * @param combine   adds its second argument into its first and returns it (or a new one);
     *                  called in the group tasks and on the driver
     * @param <T>       the row type
     * @param <U>       the accumulator type
     */
    public static <T, U> U aggregate(JavaRDD<T> rows, int maxGroups, Function0<U> zero,
                                     Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(zero, "zero");
        Objects.requireNonNull(fold, "fold");
        Objects.requireNonNull(combine, "combine");
        if (maxGroups < 1) {
            throw new IllegalArgumentException("maxGroups must be >= 1, got " + maxGroups);
        }
        int partitions = rows.getNumPartitions();
        if (partitions == 0) {
            return call(zero);
        }
        int size = groupSize(partitions, maxGroups);
        List<U> groups = asCaller(rows.context(), () -> collect(rows, size, zero, fold, combine));
        U total = call(zero);
        for (U sum : groups) {
            try {
                total = combine.call(total, sum);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("combining the group results failed", e);
            }
        }
        return total;
    }

    /** The partitions' results combined within their groups, collected in group order. */
    private static <T, U> List<U> collect(JavaRDD<T> rows, int size, Function0<U> zero,
                                          Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine) {
        int partitions = rows.getNumPartitions();
        JavaPairRDD<Integer, U> parts = rows.mapPartitionsWithIndex(
            (partition, it) -> Collections.singletonList(new Tuple2<>(partition, fold.call(zero.call(), partition, it)))
                .iterator(), true).mapToPair(t -> t);
        JavaRDD<U> results;
        if (size == 1) {
            results = parts.values();
        } else {
            results = parts.repartitionAndSortWithinPartitions(new ConsecutiveGroups(partitions, size))
                .mapPartitions(group -> {
                    U acc = group.next()._2();
                    while (group.hasNext()) {
                        acc = combine.call(acc, group.next()._2());
                    }
                    return Collections.singletonList(acc).iterator();
                });
        }
        return results.collect();
    }

    private static <U> U call(Function0<U> zero) {
        try {
            return zero.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("making an empty accumulator failed", e);
        }
    }

    /** Partitions per group: {@code ceil(partitions / maxGroups)}, at least 1. */
    static int groupSize(int partitions, int maxGroups) {
        return Math.max(1, (partitions + maxGroups - 1) / maxGroups);
    }

    /** Groups of {@code size} consecutive partitions covering {@code partitions}. */
    static int groupCount(int partitions, int size) {
        return (partitions + size - 1) / size;
    }

    /**
     * Runs {@code job} with the call site set to the first frame outside this class, so the job
     * and its stages (named after their RDDs' creation sites) are named after the caller.
     */
    private static <U> List<U> asCaller(org.apache.spark.SparkContext sc, java.util.function.Supplier<List<U>> job) {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
        String previous = sc.getLocalProperty(CALL_SITE_SHORT);
        jsc.setCallSite("aggregate at " + callerSite());
        try {
            return job.get();
        } finally {
            if (previous == null) {
                jsc.clearCallSite();
            } else {
                jsc.setCallSite(previous);
            }
        }
    }

    private static String callerSite() {
        String self = FixedOrderAggregate.class.getName();
        return StackWalker.getInstance().walk(frames -> frames
            .filter(f -> !f.getClassName().equals(self) && !f.getClassName().startsWith(self + "$"))
            .findFirst()
            .map(f -> f.getFileName() + ":" + f.getLineNumber())
            .orElse("unknown"));
    }

    /** Sends partition p's result to group {@code p / size}. */
    private static final class ConsecutiveGroups extends Partitioner {

        private static final long serialVersionUID = 1L;

        private final int groups;
        private final int size;

        ConsecutiveGroups(int partitions, int size) {
            this.groups = groupCount(partitions, size);
            this.size = size;
        }

        @Override
        public int numPartitions() {
            return groups;
        }

        @Override
        public int getPartition(Object key) {
            return (Integer) key / size;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ConsecutiveGroups g && g.groups == groups && g.size == size;
        }

        @Override
        public int hashCode() {
            return 31 * groups + size;
        }
    }
}
