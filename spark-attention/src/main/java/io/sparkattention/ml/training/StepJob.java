package io.sparkattention.ml.training;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.ml.Shipped;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.GradientSumsCodec;
import io.sparkattention.nn.TrainableNetwork;
import io.sparkattention.nn.TrainingEvaluator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.broadcast.Broadcast;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The Spark jobs of one fit over its training rows, each at one point of the parameters
 * (broadcast once per step) and summed by {@link FixedOrderAggregate}: each of the T leaf tasks
 * (T = min(P, the fit's {@code leaves})) folds the rows of its run of consecutive partitions into
 * one {@link StepSums}, handing the evaluator (one per task, {@link StepEvaluators}) runs of
 * {@link TrainableNetwork#rowsPerRun()} sampled rows in the leaf's order and flushing its pending
 * sums after each run (in float64). A run spans partitions (it ends when full or at the leaf's
 * last partition), so a leaf of many one-row partitions still stacks its rows and flushes once a
 * run, not once a partition, and the leaf's bits depend on its rows, not on where its run of
 * partitions is cut. Groups of consecutive leaves add theirs in leaf order, each group's
 * merge cut into the fit's {@code slices} tasks that add one slice of the sums each (float32 slices,
 * {@link GradientSums#slice}: no bits depend on the slice count), and the driver adds the groups'
 * slices into its float64 total in (group, slice) order (held as they come and summed when the
 * update reads them: {@link GradientSums#deferred}). When the leaves' slices fit
 * {@link #DRIVER_MERGE_BUDGET_BYTES}, the driver runs that merge itself from the leaves' slices
 * (no shuffle, no merge stage; the same bits). So the bits depend on the data, the partitioning and the leaves the fit
 * fixed when it started; the shuffle carries at most T {@link GradientSums} (the dense tensors
 * and the embedding rows a leaf touched) whatever the partition count, and the driver holds at
 * most {@link #maxGroups}. A row is in step t's sample by (seed, t, row key) alone
 * ({@link Sampling}), and a network keys its dropout the same way, so a re-run task computes the
 * same bits.
 *
 * @param <R> the network's training row
 */
final class StepJob<R> {

    /**
     * The driver's budget for the groups' gradient sums (8 bytes a parameter): it sets the group
     * count, so a fit's bits depend on it. 256 MiB keeps 14 sums at E = 768 (2.37 million
     * parameters) and stays under {@code spark.driver.maxResultSize}'s default of 1 GiB.
     */
    static final long GROUP_SUMS_BUDGET_BYTES = 256L << 20;

    /**
     * The driver's budget for the leaves' slices when it merges them itself
     * ({@link FixedOrderAggregate}'s {@code driverLeaves}: no shuffle, the same bits): as many leaves
     * as the last step's sums' slices ({@link GradientSumsCodec#sliceBytes}, the most any leaf can
     * carry at the same touched rows) fit in it, none before the first step's sums are known beyond
     * the worst case. For a fine-tuned MiniLM at 32 rows a step (about 50 MB a leaf) 5 leaves.
     */
    static final long DRIVER_MERGE_BUDGET_BYTES = 256L << 20;

    private final JavaRDD<R> rows;
    private final int leaves;
    private final int slices;
    private final Broadcast<? extends Shipped<? extends TrainableNetwork<R>>> network;
    private final GradientLayout layout;
    private final RowKey<R> keys;
    /** What one leaf's slices may weigh: the worst case, then the last step's total's slices' weight. */
    private long leafSliceBytes;

    /**
     * @param rows    the training rows, cached or deterministic (a recomputed partition gives the same rows in order)
     * @param leaves  the leaf tasks' bound, read once when the fit starts ({@link FixedOrderAggregate#leaves})
     * @param slices  the merge tasks per group ({@link FixedOrderAggregate#slices}: no bits depend on it)
     * @param network the network, shipped once for the whole fit
     * @param layout  the network's {@link GradientLayout}
     * @param keys    the rows' keys
     */
    StepJob(JavaRDD<R> rows, int leaves, int slices, Broadcast<? extends Shipped<? extends TrainableNetwork<R>>> network,
            GradientLayout layout, RowKey<R> keys) {
        this.rows = rows;
        this.leaves = leaves;
        this.slices = slices;
        this.network = network;
        this.layout = layout;
        this.keys = keys;
        this.leafSliceBytes = 4L * layout.denseCount() + 12L * (layout.parameterCount() - layout.denseCount());
    }

    /** Σ weighted loss, Σ weight and the gradient sums over step {@code step}'s sample, dropout on. */
    StepSums gradient(Broadcast<StepParameters> parameters, double fraction, long seed, long step) {
        Broadcast<? extends Shipped<? extends TrainableNetwork<R>>> shipped = network;
        RowKey<R> key = keys;
        GradientLayout sumsLayout = layout;
        int partitions = rows.getNumPartitions(), leafBound = leaves;
        Function3<StepSums, Integer, Iterator<R>, StepSums> fold = (sums, partition, it) -> {
            TrainableNetwork<R> n = shipped.value().get();
            float[] theta = parameters.value().values();
            TrainingEvaluator<R> bound = StepEvaluators.forStep(n, theta, true, () -> n.bind(theta, true, seed, step));
            if (sums.run == null) {
                // The leaf's first partition: what a failed earlier attempt on this thread left pending is not its.
                bound.discardPending();
                sums.run = new ArrayList<R>(n.rowsPerRun());
            }
            @SuppressWarnings("unchecked")
            List<R> run = (List<R>) sums.run;
            while (it.hasNext()) {
                R r = it.next();
                if (!Sampling.sampled(seed, step, key.of(r), fraction)) {
                    continue;
                }
                run.add(r);
                if (run.size() == n.rowsPerRun()) {
                    sums.loss += bound.add(run);
                    count(bound, run, sums);
                    bound.flushInto(sums.grad);
                }
            }
            if (FixedOrderAggregate.endsLeaf(partition, partitions, leafBound)) {
                if (!run.isEmpty()) {
                    sums.loss += bound.add(run);
                    count(bound, run, sums);
                    bound.flushInto(sums.grad);
                }
                sums.run = null;
                sums.grad.trim();
                sums.largestTaskValues = Math.max(sums.largestTaskValues, sums.grad.values());
            }
            return sums;
        };
        // A leaf task's sums reuse its thread's dense buffer (LeafBuffers); the driver's total keeps the
        // groups' slices as they come and sums them when the update reads it (GradientSums.deferred).
        int driverLeaves = (int) Math.min(Integer.MAX_VALUE, DRIVER_MERGE_BUDGET_BYTES / Math.max(1, leafSliceBytes));
        StepSums total = FixedOrderAggregate.aggregate(rows, leaves, maxGroups(layout.parameterCount()), slices,
            driverLeaves, () -> new StepSums(LeafBuffers.emptySums(sumsLayout)),
            () -> new StepSums(GradientSums.deferred(sumsLayout)), fold, StepSums::add);
        leafSliceBytes = GradientSumsCodec.sliceBytes(total.grad);
        return total;
    }

    /** Σ weighted loss and Σ weight over every row at the parameters, in evaluation mode (no dropout). */
    StepSums loss(Broadcast<StepParameters> parameters) {
        Broadcast<? extends Shipped<? extends TrainableNetwork<R>>> shipped = network;
        int partitions = rows.getNumPartitions(), leafBound = leaves;
        Function3<StepSums, Integer, Iterator<R>, StepSums> fold = (sums, partition, it) -> {
            TrainableNetwork<R> n = shipped.value().get();
            float[] theta = parameters.value().values();
            TrainingEvaluator<R> bound = StepEvaluators.forStep(n, theta, false, () -> n.bind(theta, false, 0, 0));
            if (sums.run == null) {
                sums.run = new ArrayList<R>(n.rowsPerRun());
            }
            @SuppressWarnings("unchecked")
            List<R> run = (List<R>) sums.run;
            while (it.hasNext()) {
                run.add(it.next());
                if (run.size() == n.rowsPerRun()) {
                    sums.loss += bound.loss(run);
                    count(bound, run, sums);
                }
            }
            if (FixedOrderAggregate.endsLeaf(partition, partitions, leafBound)) {
                if (!run.isEmpty()) {
                    sums.loss += bound.loss(run);
                    count(bound, run, sums);
                }
                sums.run = null;
            }
            return sums;
        };
        return FixedOrderAggregate.aggregate(rows, leaves, Integer.MAX_VALUE, () -> new StepSums(null), fold,
            StepSums::add);
    }

    /** Adds the run's weights and rows to the sums, in row order, and empties the run. */
    private static <R> void count(TrainingEvaluator<R> bound, List<R> run, StepSums sums) {
        for (R r : run) {
            sums.weight += bound.weight(r);
        }
        sums.rows += run.size();
        run.clear();
    }

    /** The groups whose gradient sums ({@code parameters} doubles each at the most) fit the budget. */
    static int maxGroups(int parameters) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, GROUP_SUMS_BUDGET_BYTES / (8L * Math.max(1, parameters))));
    }
}
