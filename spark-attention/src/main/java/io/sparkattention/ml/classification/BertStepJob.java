package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.nn.Softmax;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.broadcast.Broadcast;

import java.util.Iterator;

/**
 * One Spark job of a {@link BertClassifier} fit over the laid-out training rows at one point of
 * the trainable parameters (broadcast once per step), summed by {@link FixedOrderAggregate}: each
 * of the T leaf tasks (T = min(P, the fit's {@code leaves})) adds the rows of its run of
 * consecutive partitions into one {@link StepSums} in partition and row order, with one evaluator
 * ({@link StepEvaluators}) that sums each run of {@link #ROWS_PER_FLUSH} rows of a partition in
 * float32 first; groups of consecutive leaves add theirs in leaf order, and the driver
 * adds the groups in order. The shuffle carries at most T gradient vectors whatever the partition
 * count, and the driver holds at most {@link StepJob#maxGroups}. A row is in step t's sample by
 * (seed, t, row key) alone, and its dropout masks are keyed the same way, so a re-run task
 * computes the same bits and the sample does not depend on the layout.
 */
final class BertStepJob {

    /**
     * Rows of a partition whose gradients are summed in float32 before they go into the task's
     * float64 sums, counted from the partition's first sampled row. A flush reads and writes every
     * trainable parameter (24 bytes each: 0.26 GB for all of all-MiniLM-L6-v2's layers); flushed
     * per row it took a tenth of a fine-tuning step's samples (JFR, {@code bench --fine-tune}). Per
     * 32 rows it costs a few percent, and a float32 sum of 32 rows stays within about 32 ulp.
     */
    static final int ROWS_PER_FLUSH = 32;

    private BertStepJob() {
    }

    /** Σw·CE, Σw and Σw·∂CE/∂θ over step {@code step}'s sample, dropout on (training binding). */
    static StepSums gradient(JavaRDD<BertTrainingRow> rows, int leaves,
                             Broadcast<Shipped<BertClassifierNetwork>> network, int parameterCount,
                             Broadcast<float[]> parameters, double fraction, long seed, int step) {
        Function3<StepSums, Integer, Iterator<BertTrainingRow>, StepSums> fold = (sums, partition, it) -> {
            BertClassifierNetwork n = network.value().get();
            float[] theta = parameters.value();
            BertClassifierEvaluator bound = StepEvaluators.forStep(n, theta, true, () -> n.bind(theta, seed, step));
            // What a failed earlier attempt on this thread left pending is not this partition's.
            bound.discardPending();
            int pending = 0;
            while (it.hasNext()) {
                BertTrainingRow r = it.next();
                if (fraction < 1 && !sampled(seed, step, r.key, fraction)) {
                    continue;
                }
                sums.loss += bound.add(r.ids, r.frozen, r.key, r.label, r.weight);
                sums.weight += r.weight;
                sums.rows++;
                if (++pending == ROWS_PER_FLUSH) {
                    bound.flushInto(sums.grad);
                    pending = 0;
                }
            }
            bound.flushInto(sums.grad);
            return sums;
        };
        return FixedOrderAggregate.aggregate(rows, leaves, StepJob.maxGroups(parameterCount),
            () -> new StepSums(new double[parameterCount]), fold, StepSums::add);
    }

    /** Σw·CE and Σw over every row at the parameters, in eval mode (no dropout, no backward pass). */
    static StepSums loss(JavaRDD<BertTrainingRow> rows, int leaves,
                         Broadcast<Shipped<BertClassifierNetwork>> network, Broadcast<float[]> parameters) {
        Function3<StepSums, Integer, Iterator<BertTrainingRow>, StepSums> fold = (sums, partition, it) -> {
            BertClassifierNetwork n = network.value().get();
            float[] theta = parameters.value();
            BertClassifierEvaluator bound = StepEvaluators.forStep(n, theta, false, () -> n.bind(theta));
            float[] logits = new float[n.numClasses()];
            while (it.hasNext()) {
                BertTrainingRow r = it.next();
                bound.logits(r.ids, r.frozen, logits);
                sums.loss += r.weight * Softmax.crossEntropy(logits, r.label);
                sums.weight += r.weight;
                sums.rows++;
            }
            return sums;
        };
        return FixedOrderAggregate.aggregate(rows, leaves, Integer.MAX_VALUE, () -> new StepSums(null), fold,
            StepSums::add);
    }

    /**
     * Whether the row keyed {@code key} is in step {@code step}'s sample: a uniform draw from
     * (seed, step, key) alone below {@code fraction}.
     */
    static boolean sampled(long seed, int step, long key, double fraction) {
        long h = StepJob.samplingSeed(seed, step, 0);
        h = mix(h + 0x9E3779B97F4A7C15L * (key + 1));
        return (h >>> 11) * 0x1.0p-53 < fraction;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
