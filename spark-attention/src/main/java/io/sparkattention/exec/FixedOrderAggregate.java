package io.sparkattention.exec;

import io.sparkattention.sparkinternal.PartitionLocations;
import org.apache.spark.Partition;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function0;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import scala.Option;
import scala.Tuple2;

import java.io.Serializable;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An aggregate of an RDD whose result depends on the data and a fixed layout only, never on
 * which task finishes first, summed up a fixed-order tree: leaves, then groups, then the driver.
 * A leaf task folds a run of consecutive partitions into one accumulator, so a step keeps every
 * task slot busy while shipping one accumulator per leaf, not per partition, and the driver holds a
 * bounded number of partial results.
 *
 * <p>Layout, from P partitions, the {@code leaves} bound and the {@code maxGroups} bound:
 * T = min(P, leaves) leaves, leaf i holding partitions [⌊i·P/T⌋, ⌊(i+1)·P/T⌋); G groups of
 * {@code size = ceil(T / maxGroups)} consecutive leaves (the last may be shorter). The result is,
 * bit for bit, that of this sequential loop, whatever the scheduling, retries or executor losses
 * (as long as a recomputed partition gives its rows in the same order: a cached or deterministic
 * input does):
 * <pre>
 *   for i in 0 .. T−1:                                           one task per leaf
 *       leaf(i) = zero()
 *       for p in leaf i's run, increasing:  leaf(i) = fold(leaf(i), p, rows of partition p)
 *   for g in 0 .. G−1:                                           one task per group
 *       acc(g) = leaf(first i of g)
 *       for the next i of group g, increasing:  acc(g) = combine(acc(g), leaf(i))
 *   total = zero()
 *   for g in 0 .. G−1:  total = combine(total, acc(g))           on the driver
 * </pre>
 * The bits are a function of (data, P, T, G). A caller that fixes T once (from the cluster's task
 * slots when a fit starts, {@link #leaves}) and G once keeps them for every job; the bits may then
 * differ between clusters of different size, never between runs, retries or executor losses on one.
 * With {@code T ≤ maxGroups} every leaf is its own group and the driver combines the leaves' results
 * directly (one stage, no shuffle).
 *
 * <p>How: the leaves are a {@code coalesce} without shuffle whose {@link PartitionCoalescer} (a
 * public developer API of Spark) takes runs of consecutive partitions, so a leaf's task computes its
 * partitions one after the other in index order, each from its cached blocks or its lineage, and
 * folds each into the running accumulator; it prefers the host that caches most of its run
 * ({@link PartitionLocations}). With G &lt; T the leaves' results go through one shuffle keyed by
 * leaf index to the G group tasks, which receive them sorted by that index (Spark's sorter, which
 * spills to disk when its memory is short) and combine them in that order; the driver collects the
 * G results in group order. Spark's {@code aggregate}, {@code fold} and {@code treeAggregate} do
 * not fix the order: their driver-side merge and {@code treeAggregate}'s {@code foldByKey} levels
 * combine partial results in the order tasks finish or shuffle blocks arrive. A lost leaf is
 * recomputed whole by Spark's retry and gives the same bits.
 *
 * <p>Memory: the driver holds the G ≤ {@code maxGroups} group results plus the total; a leaf task
 * its running accumulator; a group task its running accumulator and the sorted leaf results. The
 * shuffle, when there is one, carries T accumulators, whatever P is.
 */
public final class FixedOrderAggregate {

    /**
     * Leaf tasks per task slot. 2 lets the slots that finish their first leaf early take another,
     * so a slow partition (long rows, a busy executor) idles fewer cores; more leaves cost more
     * accumulators in the shuffle (when G &lt; T) and more evaluator set-ups per step.
     */
    public static final int LEAVES_PER_SLOT = 2;

    /** Spark's local property for a job's short call site ({@code CallSite.SHORT_FORM}). */
    private static final String CALL_SITE_SHORT = "callSite.short";

    private FixedOrderAggregate() {
    }

    /**
     * The leaf bound for a cluster of {@code slots} task slots: {@code slots × }{@link #LEAVES_PER_SLOT}.
     * Read the slots once (when a fit starts, e.g. {@code SparkContext.defaultParallelism}) and keep
     * the value for every job whose bits must agree: an executor lost and replaced mid-fit must not
     * change the layout.
     *
     * @param slots the cluster's task slots, ≥ 1
     */
    public static int leaves(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be >= 1, got " + slots);
        }
        return (int) Math.min(Integer.MAX_VALUE, (long) slots * LEAVES_PER_SLOT);
    }

    /**
     * The aggregate of {@code rows} in the fixed order above, in one Spark job. The job is named
     * after the caller's source line, as Spark names jobs after the user code that starts them.
     *
     * @param rows      the partitioned data
     * @param leaves    T's bound, ≥ 1: the leaf tasks (see {@link #leaves})
     * @param maxGroups G's bound, ≥ 1: the number of partial results the driver may hold
     * @param zero      a new, empty accumulator (called on the executors and on the driver)
     * @param fold      adds a partition's rows into the given accumulator and returns it (or a new
     *                  one); given the partition's index in {@code rows}
     * @param combine   adds its second argument into its first and returns it (or a new one);
     *                  called in the group tasks and on the driver
     * @param <T>       the row type
     * @param <U>       the accumulator type
     */
    public static <T, U> U aggregate(JavaRDD<T> rows, int leaves, int maxGroups, Function0<U> zero,
                                     Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(zero, "zero");
        Objects.requireNonNull(fold, "fold");
        Objects.requireNonNull(combine, "combine");
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves must be >= 1, got " + leaves);
        }
        if (maxGroups < 1) {
            throw new IllegalArgumentException("maxGroups must be >= 1, got " + maxGroups);
        }
        int partitions = rows.getNumPartitions();
        if (partitions == 0) {
            return call(zero);
        }
        int leafCount = Math.min(partitions, leaves);
        int size = groupSize(leafCount, maxGroups);
        List<U> groups = asCaller(rows.context(), () -> collect(rows, leafCount, size, zero, fold, combine));
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

    /** The leaves' results combined within their groups of {@code size}, collected in group order. */
    private static <T, U> List<U> collect(JavaRDD<T> rows, int leafCount, int size, Function0<U> zero,
                                          Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine) {
        JavaRDD<Member<T>> members = rows.mapPartitionsWithIndex(
            (partition, it) -> Collections.singletonList(new Member<>(partition, it)).iterator(), true);
        RDD<Member<T>> runs = members.rdd().coalesce(leafCount, false,
            Option.apply(new ConsecutiveRuns(leafCount)), null);
        JavaRDD<U> leafSums = runs.toJavaRDD().mapPartitions(run -> {
            U acc = zero.call();
            while (run.hasNext()) {
                Member<T> member = run.next();
                acc = fold.call(acc, member.partition, member.rows);
            }
            return Collections.singletonList(acc).iterator();
        });
        if (size == 1) {
            return leafSums.collect();
        }
        return leafSums
            .mapPartitionsWithIndex((leaf, it) -> Collections.singletonList(new Tuple2<>(leaf, it.next())).iterator(),
                true)
            .mapToPair(t -> t)
            .repartitionAndSortWithinPartitions(new ConsecutiveGroups(leafCount, size))
            .mapPartitions(group -> {
                U acc = group.next()._2();
                while (group.hasNext()) {
                    acc = combine.call(acc, group.next()._2());
                }
                return Collections.singletonList(acc).iterator();
            })
            .collect();
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

    /** The first partition of leaf {@code leaf} of {@code leafCount} over {@code partitions}: ⌊leaf·P/T⌋. */
    static int runStart(int leaf, int partitions, int leafCount) {
        return (int) ((long) leaf * partitions / leafCount);
    }

    /** Leaves per group: {@code ceil(leaves / maxGroups)}, at least 1. */
    static int groupSize(int leaves, int maxGroups) {
        return Math.max(1, (leaves + maxGroups - 1) / maxGroups);
    }

    /** Groups of {@code size} consecutive leaves covering {@code leaves}. */
    static int groupCount(int leaves, int size) {
        return (leaves + size - 1) / size;
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

    /**
     * One partition of the input inside its leaf's task: its index and its rows, consumed by the
     * leaf's fold before the next member is computed (the coalesced task computes its parents
     * lazily, one after the other). Never serialized: it lives within one task.
     */
    private record Member<T>(int partition, Iterator<T> rows) {
    }

    /**
     * Cuts the parent's P partitions into {@code leafCount} runs of consecutive ones, in index order
     * (see {@link #runStart}); each run prefers the host that caches most of its partitions.
     */
    private static final class ConsecutiveRuns implements PartitionCoalescer, Serializable {

        private static final long serialVersionUID = 1L;

        private final int leafCount;

        ConsecutiveRuns(int leafCount) {
            this.leafCount = leafCount;
        }

        @Override
        public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
            Partition[] partitions = parent.partitions();
            PartitionGroup[] runs = new PartitionGroup[leafCount];
            for (int i = 0; i < leafCount; i++) {
                int from = runStart(i, partitions.length, leafCount);
                int to = runStart(i + 1, partitions.length, leafCount);
                runs[i] = new PartitionGroup(mostCommonHost(parent, from, to));
                for (int p = from; p < to; p++) {
                    runs[i].partitions().$plus$eq(partitions[p]);
                }
            }
            return runs;
        }

        /** The host caching most of partitions [from, to) (on a tie, the first to reach that count), if any. */
        private static Option<String> mostCommonHost(RDD<?> parent, int from, int to) {
            Map<String, Integer> counts = new HashMap<>();
            String best = null;
            int bestCount = 0;
            for (int p = from; p < to; p++) {
                Option<String> host = PartitionLocations.firstHost(parent, p);
                if (host.isDefined()) {
                    int n = counts.merge(host.get(), 1, Integer::sum);
                    if (n > bestCount) {
                        best = host.get();
                        bestCount = n;
                    }
                }
            }
            return Option.apply(best);
        }
    }

    /** Sends leaf i's result to group {@code i / size}. */
    private static final class ConsecutiveGroups extends Partitioner {

        private static final long serialVersionUID = 1L;

        private final int groups;
        private final int size;

        ConsecutiveGroups(int leaves, int size) {
            this.groups = groupCount(leaves, size);
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
