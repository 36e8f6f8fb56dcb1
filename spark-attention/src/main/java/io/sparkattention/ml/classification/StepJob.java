package io.sparkattention.ml.classification;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ClassifierEvaluator;
import io.sparkattention.nn.Softmax;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.Function3;
import org.apache.spark.broadcast.Broadcast;

import java.util.Iterator;
import java.util.SplittableRandom;

/**
 * One Spark job over the cached training rows at one point of the parameters (broadcast once per
 * step), summed by {@link FixedOrderAggregate}: each of the T leaf tasks (T = min(P, the fit's
 * {@code leaves})) adds the rows of its run of consecutive partitions into one {@link StepSums},
 * in partition and row order; groups of consecutive leaves add theirs in leaf order, and the driver
 * adds the groups in group order. So the bits depend on the data, the partitioning and the leaves
 * the fit fixed when it started, every task slot works on a step, the shuffle carries at most T
 * gradient vectors whatever the partition count, and the driver holds at most {@link #maxGroups}.
 * With {@code fraction < 1} a
 * partition keeps each row with that probability, drawn from a generator seeded by (seed, step,
 * partition index) alone, so a re-run task (after a failure or an executor loss) samples the same
 * rows and the step's result does not depend on scheduling.
 */
final class StepJob {

    /** Mixes (seed, step, partition) into one sampling seed (SplitMix64's finaliser constants). */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /**
     * The driver's budget for the groups' gradient sums (doubles): it sets the group count, so a
     * fit's bits depend on it. 256 MiB keeps 14 sums at E = 768 (2.37 million parameters) and stays
     * under {@code spark.driver.maxResultSize}'s default of 1 GiB.
     */
    static final long GROUP_SUMS_BUDGET_BYTES = 256L << 20;

    private StepJob() {
    }

    /** Σw·CE, Σw and Σw·∂CE/∂θ over the step's sample of {@code rows}. */
    static StepSums gradient(JavaRDD<TrainingRow> rows, int leaves, AttentionClassifierNetwork network,
                             Broadcast<float[]> parameters, double fraction, long seed, int step) {
        int count = network.parameterCount();
        Function3<StepSums, Integer, Iterator<TrainingRow>, StepSums> fold = (sums, partition, it) -> {
            ClassifierEvaluator bound = StepEvaluators.forStep(network, parameters.value());
            SplittableRandom sampler = fraction < 1 ? new SplittableRandom(samplingSeed(seed, step, partition)) : null;
            while (it.hasNext()) {
                TrainingRow r = it.next();
                if (sampler != null && sampler.nextDouble() >= fraction) {
                    continue;
                }
                sums.loss += bound.accumulate(r.x, r.length, r.label, r.weight, sums.grad);
                sums.weight += r.weight;
                sums.rows++;
            }
            return sums;
        };
        return FixedOrderAggregate.aggregate(rows, leaves, maxGroups(count), () -> new StepSums(new double[count]),
            fold, StepSums::add);
    }

    /** Σw·CE and Σw over every row, from the logits alone (no backward pass). */
    static StepSums loss(JavaRDD<TrainingRow> rows, int leaves, AttentionClassifierNetwork network,
                         Broadcast<float[]> parameters, int numClasses) {
        Function3<StepSums, Integer, Iterator<TrainingRow>, StepSums> fold = (sums, partition, it) -> {
            ClassifierEvaluator bound = StepEvaluators.forStep(network, parameters.value());
            float[] logits = new float[numClasses];
            while (it.hasNext()) {
                TrainingRow r = it.next();
                bound.logits(r.x, r.length, logits);
                sums.loss += r.weight * Softmax.crossEntropy(logits, r.label);
                sums.weight += r.weight;
                sums.rows++;
            }
            return sums;
        };
        return FixedOrderAggregate.aggregate(rows, leaves, Integer.MAX_VALUE, () -> new StepSums(null), fold,
            StepSums::add);
    }

    /** The groups whose gradient sums ({@code parameters} doubles each) fit {@link #GROUP_SUMS_BUDGET_BYTES}. */
    static int maxGroups(int parameters) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, GROUP_SUMS_BUDGET_BYTES / (8L * Math.max(1, parameters))));
    }

    /** A seed that depends on (seed, step, partition) only, well spread even for neighbouring values. */
    static long samplingSeed(long seed, int step, int partition) {
        long h = seed;
        h = mix(h + GOLDEN_GAMMA * (step + 1L));
        h = mix(h + GOLDEN_GAMMA * (partition + 1L));
        return h;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
