package io.sparkattention.exec;

import io.sparkattention.sparkinternal.PartitionLocations;
import org.apache.spark.Partition;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function0;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import scala.Option;

import java.io.Serializable;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * An aggregate of an RDD whose result depends on the data and the partitioning only, never on
 * which task finishes first, with a bounded number of partial results on the driver.
 *
 * <p>The P partitions are cut into G groups of {@code ceil(P / maxGroups)} consecutive partitions
 * (the last group may be shorter). One task per group starts from {@code zero} and folds its
 * partitions into that one accumulator in increasing partition index; the driver starts from
 * {@code zero} and combines the G accumulators in group order. The result is therefore, bit for
 * bit, that of this sequential loop, whatever the scheduling, retries or executor losses (as long
 * as a recomputed partition gives its rows in the same order: a cached or deterministic input does):
 * <pre>
 *   total = zero()
 *   for g in 0 .. G−1:
 *       acc = zero()
 *       for p in group g, increasing:  acc = fold(acc, p, rows of partition p)
 *       total = combine(total, acc)
 * </pre>
 * With {@code P ≤ maxGroups} every partition is its own group.
 *
 * <p>Memory: the driver holds at most G ≤ {@code maxGroups} accumulators (the collected group
 * results) plus the total; a task holds one accumulator and whatever {@code fold} needs for the
 * partition at hand. Spark's {@code aggregate}, {@code fold} and {@code treeAggregate} do not
 * fix the order: their final merge on the driver ({@code RDD.fold}'s result handler) and
 * {@code treeAggregate}'s {@code foldByKey} levels combine partial results in the order tasks
 * finish or shuffle blocks arrive, so a floating-point sum changes with the timing.
 *
 * <p>How: the groups are a {@code coalesce} without shuffle whose {@link PartitionCoalescer} (a
 * public developer API of Spark) takes consecutive partitions, so a group's task computes its
 * partitions one after the other in index order, each from its cached blocks or its lineage; a
 * lost group is recomputed whole by its retried task. A group's task prefers the host of its first
 * partition's cached blocks ({@link PartitionLocations}). The job runs G tasks, so G also bounds its parallelism.
 */
public final class FixedOrderAggregate {

    /** Spark's local property for a job's short call site ({@code CallSite.SHORT_FORM}). */
    private static final String CALL_SITE_SHORT = "callSite.short";

    private FixedOrderAggregate() {
    }

    /**
     * The aggregate of {@code rows} in the fixed order above. The job is named after the caller's
     * source line, as Spark names jobs after the user code that starts them.
     *
     * @param rows      the partitioned data
     * @param maxGroups G's bound, ≥ 1: the number of accumulators the driver may hold
     * @param zero      a new, empty accumulator (called on the executors and on the driver)
     * @param fold      adds a partition's rows into an accumulator and returns it (or a new one);
     *                  given the partition's index in {@code rows}
     * @param combine   adds a group's accumulator into the total on the driver and returns it
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
        JavaRDD<Member<T>> members = rows.mapPartitionsWithIndex(
            (partition, it) -> Collections.singletonList(new Member<>(partition, it)).iterator(), true);
        RDD<Member<T>> grouped = members.rdd().coalesce(groupCount(partitions, size), false,
            Option.apply(new ConsecutiveGroups(size)), null);
        JavaRDD<U> sums = grouped.toJavaRDD().mapPartitions(group -> {
            U acc = zero.call();
            while (group.hasNext()) {
                Member<T> member = group.next();
                acc = fold.call(acc, member.partition, member.rows);
            }
            return Collections.singletonList(acc).iterator();
        });
        List<U> groups = collectAsCaller(rows.context(), sums);
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

    /** Collects the group results in group order, the job named after the first frame outside this class. */
    private static <U> List<U> collectAsCaller(org.apache.spark.SparkContext sc, JavaRDD<U> sums) {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
        String previous = sc.getLocalProperty(CALL_SITE_SHORT);
        jsc.setCallSite("aggregate at " + callerSite());
        try {
            return sums.collect();
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

    /**
     * One partition of the input inside its group's task: its index and its rows, consumed by
     * the group's fold before the next member is computed (the coalesced task computes its
     * parents lazily, one after the other). Never serialized: it lives within one task.
     */
    private record Member<T>(int partition, Iterator<T> rows) {
    }

    /** Cuts the parent's partitions into groups of {@code size} consecutive ones, in index order. */
    private static final class ConsecutiveGroups implements PartitionCoalescer, Serializable {

        private static final long serialVersionUID = 1L;

        private final int size;

        ConsecutiveGroups(int size) {
            this.size = size;
        }

        @Override
        public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
            Partition[] partitions = parent.partitions();
            PartitionGroup[] groups = new PartitionGroup[groupCount(partitions.length, size)];
            for (int g = 0; g < groups.length; g++) {
                int first = g * size;
                groups[g] = new PartitionGroup(PartitionLocations.firstHost(parent, first));
                for (int p = first; p < Math.min(partitions.length, first + size); p++) {
                    groups[g].partitions().$plus$eq(partitions[p]);
                }
            }
            return groups;
        }
    }
}
