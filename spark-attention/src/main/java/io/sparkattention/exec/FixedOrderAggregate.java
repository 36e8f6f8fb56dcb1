package io.sparkattention.exec;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function0;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.RDD;
import scala.Option;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * An aggregate of an RDD whose result depends on the data and a fixed layout only, never on
 * which task finishes first, summed up a fixed-order tree: leaves, then groups, then the driver.
 * A leaf task folds a run of consecutive partitions into one accumulator, so a step keeps every
 * task slot busy while shipping one accumulator per leaf, not per partition, and the driver holds a
 * bounded number of partial results.
 *
 * <p>Layout, from P partitions, the {@code leaves} bound, the {@code maxGroups} bound and the slice
 * count S (1 unless the accumulator is {@link Sliceable} and the caller asks for more):
 * T = min(P, leaves) leaves, leaf i holding partitions [⌊i·P/T⌋, ⌊(i+1)·P/T⌋); G groups of
 * {@code size = ceil(T / maxGroups)} consecutive leaves (the last may be shorter). The result is,
 * bit for bit, that of this sequential loop, whatever the scheduling, retries or executor losses
 * (as long as a recomputed partition gives its rows in the same order: a cached or deterministic
 * input does):
 * <pre>
 *   for i in 0 .. T−1:                                           one task per leaf
 *       leaf(i) = zero()
 *       for p in leaf i's run, increasing:  leaf(i) = fold(leaf(i), p, rows of partition p)
 *   for g in 0 .. G−1, for s in 0 .. S−1:                        one task per group and slice
 *       acc(g, s) = leaf(first i of g).slice(s, S)
 *       for the next i of group g, increasing:  acc(g, s) = combine(acc(g, s), leaf(i).slice(s, S))
 *   total = zero()                                               (or the caller's empty total)
 *   for g in 0 .. G−1, for s in 0 .. S−1:                        on the driver
 *       total = total.addSlice(s, S, acc(g, s))
 * </pre>
 * Without slices (an accumulator that is not {@link Sliceable}), S = 1, {@code x.slice(0, 1)} is
 * x itself and {@code addSlice} is {@code combine}. By {@link Sliceable}'s contract every S gives
 * the bits of S = 1, so S spreads the merge over task slots without changing the result; a slice
 * that holds its elements exactly gives the bits of the unsliced loop. The bits are a function of
 * (data, P, T, G). A caller that fixes T once (from the cluster's task slots when a fit starts,
 * {@link #leaves}) and G once keeps them for every job; the bits may then differ between clusters
 * of different size, never between runs, retries or executor losses on one. With {@code T ≤ maxGroups} every leaf is its own group
 * and the driver combines the leaves' results directly (one stage, no shuffle, no slices).
 *
 * <p>How: the leaves are a {@code coalesce} without shuffle whose {@link PartitionCoalescer} (a
 * public developer API of Spark, {@link ConsecutiveRuns}) takes runs of consecutive partitions, so a
 * leaf's task computes its partitions one after the other in index order, each from its cached
 * blocks or its lineage, and folds each into the running accumulator; it prefers the host that
 * caches most of its run. With G &lt; T each leaf's result, cut into its S slices one at a time, goes
 * through one shuffle keyed by (leaf, slice) to the G × S merge tasks ({@link GroupSlices}), which
 * receive their slices sorted by leaf (Spark's sorter, which spills to disk when its memory is
 * short) and combine them in that order; the driver collects the G × S results in (group, slice)
 * order. With at most the caller's {@code driverLeaves} leaves, the leaf tasks return their S
 * slices instead and the driver runs the merge loop above itself: no shuffle and no merge stage,
 * the same combines in the same order. Spark's {@code aggregate}, {@code fold} and
 * {@code treeAggregate} do not fix the order:
 * their driver-side merge and {@code treeAggregate}'s {@code foldByKey} levels combine partial
 * results in the order tasks finish or shuffle blocks arrive. A lost leaf is recomputed whole by
 * Spark's retry and gives the same bits.
 *
 * <p>Memory: the driver holds the G × S ≤ {@code maxGroups} × S slice results (G whole results)
 * plus the total, or, when it merges itself, the T leaves' slices (T whole results); a leaf task
 * its running accumulator and the slice being written (all S slices when the driver merges); a
 * merge task its running accumulator and the sorted slices. The shuffle, when there is one,
 * carries T accumulators, whatever P and S are.
 */
public final class FixedOrderAggregate {

    /**
     * Leaf tasks per task slot. 2 lets the slots that finish their first leaf early take another,
     * so a slow partition (long rows, a busy executor) idles fewer cores; more leaves cost more
     * accumulators in the shuffle (when G &lt; T) and more evaluator set-ups per step.
     */
    public static final int LEAVES_PER_SLOT = 2;

    /**
     * Merge tasks per task slot, S = slots × this ({@link #slices}), for an accumulator that cuts
     * itself into slices. 1 keeps every slot merging one slice at once after the leaves (the merge
     * starts when the last leaf ends, so all slots are free); more slices cost a shuffle block and
     * a result per extra slice and task, and change no bits.
     */
    public static final int SLICES_PER_SLOT = 1;

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
     * The slice count for a cluster of {@code slots} task slots: {@code slots × }{@link #SLICES_PER_SLOT}.
     * Slices change no bits: a fit may read the slots when it starts, as for {@link #leaves}.
     *
     * @param slots the cluster's task slots, ≥ 1
     */
    public static int slices(int slots) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be >= 1, got " + slots);
        }
        return (int) Math.min(Integer.MAX_VALUE, (long) slots * SLICES_PER_SLOT);
    }

    /**
     * Whether partition {@code partition} of {@code partitions} is the last of its leaf's run, for
     * the leaves an aggregate with this {@code leaves} bound lays out (min(P, leaves) runs of
     * consecutive partitions): a fold that carries work from one partition to the next in its
     * accumulator finishes it there, so a leaf's result never depends on where its run is cut.
     *
     * @throws IllegalArgumentException when partition is not in [0, partitions) or leaves &lt; 1
     */
    public static boolean endsLeaf(int partition, int partitions, int leaves) {
        if (partition < 0 || partition >= partitions || leaves < 1) {
            throw new IllegalArgumentException("partition " + partition + " of " + partitions + " with leaves "
                + leaves);
        }
        int leafCount = Math.min(partitions, leaves);
        // Leaf i holds [runStart(i), runStart(i + 1)); the leaf of p is the largest i with runStart(i) <= p.
        int leaf = (int) (((long) (partition + 1) * leafCount + partitions - 1) / partitions) - 1;
        return runStart(leaf + 1, partitions, leafCount) == partition + 1;
    }

    /**
     * The aggregate of {@code rows} in the fixed order above (S = 1), in one Spark job. The job is
     * named after the caller's source line, as Spark names jobs after the user code that starts them.
     *
     * @param rows      the partitioned data
     * @param leaves    T's bound, ≥ 1: the leaf tasks (see {@link #leaves})
     * @param maxGroups G's bound, ≥ 1: the number of partial results the driver may hold
     * @param zero      a new, empty accumulator (called on the executors and, for the total, on the driver)
     * @param fold      adds a partition's rows into the given accumulator and returns it (or a new
     *                  one); given the partition's index in {@code rows}
     * @param combine   adds its second argument into its first and returns it (or a new one);
     *                  called in the group tasks and on the driver
     * @param <T>       the row type
     * @param <U>       the accumulator type
     */
    public static <T, U> U aggregate(JavaRDD<T> rows, int leaves, int maxGroups, Function0<U> zero,
                                     Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine) {
        Objects.requireNonNull(combine, "combine");
        return run(rows, leaves, maxGroups, 1, zero, zero, fold, combine, (u, s, count) -> u,
            (total, s, count, part) -> combine.call(total, part));
    }

    /**
     * The aggregate of {@code rows} in the fixed order above with each group's merge cut into
     * {@code slices} tasks, in one Spark job: the bits of {@link #aggregate(JavaRDD, int, int,
     * Function0, Function3, Function2)}, the merge spread over up to {@code slices} task slots.
     *
     * @param slices S, ≥ 1: the merge tasks per group (used when there is a merge, G &lt; T)
     * @see #aggregate(JavaRDD, int, int, Function0, Function3, Function2) the other arguments
     */
    public static <T, U extends Sliceable<U>> U aggregate(JavaRDD<T> rows, int leaves, int maxGroups, int slices,
                                                          Function0<U> zero, Function3<U, Integer, Iterator<T>, U> fold,
                                                          Function2<U, U, U> combine) {
        return aggregate(rows, leaves, maxGroups, slices, 0, zero, zero, fold, combine);
    }

    /**
     * {@link #aggregate(JavaRDD, int, int, int, Function0, Function3, Function2)}, with the merge on
     * the driver when there are at most {@code driverLeaves} leaves: each leaf task then returns its
     * S slices, and the driver runs the merge tasks' loop itself (the same {@code combine} calls in
     * the same order, so the same bits) without a shuffle or a second stage. For few leaves the
     * shuffle costs more than the merge it spreads (on {@code local[2]}, 100 ms writing each
     * fine-tuned MiniLM leaf's 46 MB and a merge stage of about 100 ms a step); the driver holds
     * every leaf's slices until the job ends, so the caller bounds {@code driverLeaves} by what fits.
     * In local mode the slices reach the driver by reference ({@link HandedResult}): a slice must
     * not share state that a later task changes (a copy, not a view of a reused buffer).
     *
     * @param driverLeaves the most leaves whose slices the driver merges itself (0: never)
     * @param total        the driver's new, empty total, into which the groups' results (or the
     *                     leaves', without groups) are added in order: {@code zero}, or an
     *                     accumulator of the same bits made for the driver (one that keeps the
     *                     parts added to it rather than a buffer to add them into)
     */
    public static <T, U extends Sliceable<U>> U aggregate(JavaRDD<T> rows, int leaves, int maxGroups, int slices,
                                                          int driverLeaves, Function0<U> zero, Function0<U> total,
                                                          Function3<U, Integer, Iterator<T>, U> fold,
                                                          Function2<U, U, U> combine) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(zero, "zero");
        Objects.requireNonNull(total, "total");
        Objects.requireNonNull(fold, "fold");
        Objects.requireNonNull(combine, "combine");
        if (slices < 1) {
            throw new IllegalArgumentException("slices must be >= 1, got " + slices);
        }
        int leafCount = Math.min(rows.getNumPartitions(), leaves);
        int size = groupSize(leafCount, Math.max(1, maxGroups));
        if (size == 1 || leafCount > driverLeaves || leafCount == 0 || maxGroups < 1) {
            return run(rows, leaves, maxGroups, slices, zero, total, fold, combine, Sliceable::slice,
                (sum, s, count, part) -> sum.addSlice(s, count, part));
        }
        // In local mode the slices reach the driver by reference (HandedResult), not as bytes.
        long box = HandedResult.open();
        List<List<U>> leafSlices = new java.util.ArrayList<>(leafCount);
        try {
            for (HandedResult<List<U>> handed : asCaller(rows.context(), () -> leafSums(rows, leafCount, zero, fold)
                .map(sum -> { // each leaf's S slices, cut in its task
                    List<U> cut = new java.util.ArrayList<>(slices);
                    for (int s = 0; s < slices; s++) {
                        cut.add(sum.slice(s, slices));
                    }
                    return HandedResult.of(box, cut);
                }).collect())) {
                leafSlices.add(handed.value());
            }
        } finally {
            HandedResult.close(box);
        }
        U sum = call(total);
        try {
            for (int first = 0; first < leafCount; first += size) {
                for (int s = 0; s < slices; s++) {
                    U acc = leafSlices.get(first).get(s);
                    for (int i = first + 1; i < Math.min(leafCount, first + size); i++) {
                        acc = combine.call(acc, leafSlices.get(i).get(s));
                    }
                    sum = sum.addSlice(s, slices, acc);
                }
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("combining the leaves' slices failed", e);
        }
        return sum;
    }

    private static <T, U> U run(JavaRDD<T> rows, int leaves, int maxGroups, int slices, Function0<U> zero,
                                Function0<U> empty, Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine,
                                Function3<U, Integer, Integer, U> cut, Reassembly<U> reassemble) {
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(zero, "zero");
        Objects.requireNonNull(fold, "fold");
        if (leaves < 1) {
            throw new IllegalArgumentException("leaves must be >= 1, got " + leaves);
        }
        if (maxGroups < 1) {
            throw new IllegalArgumentException("maxGroups must be >= 1, got " + maxGroups);
        }
        int partitions = rows.getNumPartitions();
        if (partitions == 0) {
            return call(empty);
        }
        int leafCount = Math.min(partitions, leaves);
        int size = groupSize(leafCount, maxGroups);
        // Without a merge stage the leaves' results reach the driver whole.
        int s = size == 1 ? 1 : slices;
        List<U> parts = asCaller(rows.context(), () -> collect(rows, leafCount, size, s, zero, fold, combine, cut));
        U total = call(empty);
        for (int j = 0; j < parts.size(); j++) {
            try {
                total = size == 1 ? combine.call(total, parts.get(j)) : reassemble.add(total, j % s, s, parts.get(j));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("combining the group results failed", e);
            }
        }
        return total;
    }

    /**
     * The leaves' results, combined within their groups of {@code size} slice by slice, collected in
     * (group, slice) order; the leaves' results themselves when {@code size} is 1.
     */
    private static <T, U> List<U> collect(JavaRDD<T> rows, int leafCount, int size, int slices, Function0<U> zero,
                                          Function3<U, Integer, Iterator<T>, U> fold, Function2<U, U, U> combine,
                                          Function3<U, Integer, Integer, U> cut) {
        JavaRDD<U> leafSums = leafSums(rows, leafCount, zero, fold);
        if (size == 1) {
            return leafSums.collect();
        }
        return leafSums
            .mapPartitionsWithIndex((leaf, it) -> new LeafSlices<>(leaf, it.next(), slices, cut), true)
            .mapToPair(t -> t)
            .repartitionAndSortWithinPartitions(new GroupSlices(leafCount, size, slices))
            .mapPartitions(group -> {
                U acc = group.next()._2();
                while (group.hasNext()) {
                    acc = combine.call(acc, group.next()._2());
                }
                return Collections.singletonList(acc).iterator();
            })
            .collect();
    }

    /** The leaves' results, one per leaf task, in leaf order. */
    private static <T, U> JavaRDD<U> leafSums(JavaRDD<T> rows, int leafCount, Function0<U> zero,
                                              Function3<U, Integer, Iterator<T>, U> fold) {
        JavaRDD<Member<T>> members = rows.mapPartitionsWithIndex(
            (partition, it) -> Collections.singletonList(new Member<>(partition, it)).iterator(), true);
        RDD<Member<T>> runs = members.rdd().coalesce(leafCount, false,
            Option.apply(new ConsecutiveRuns(leafCount)), null);
        return runs.toJavaRDD().mapPartitions(run -> {
            U acc = zero.call();
            while (run.hasNext()) {
                Member<T> member = run.next();
                acc = fold.call(acc, member.partition, member.rows);
            }
            return Collections.singletonList(acc).iterator();
        });
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

    /** Adds a merged slice into the driver's total (driver side only, never serialized). */
    @FunctionalInterface
    private interface Reassembly<U> {
        U add(U total, int s, int count, U part) throws Exception;
    }
}
