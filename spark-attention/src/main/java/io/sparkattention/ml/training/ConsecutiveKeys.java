package io.sparkattention.ml.training;

import org.apache.spark.Partitioner;

import java.util.Arrays;

/**
 * How a family lays out its training rows: the N keys (a row's position in the training data, a
 * {@code Long}) go in key order into P runs of consecutive keys, one run a partition, whatever the
 * input's partitioning, so a step's fixed-order sums see the rows in key order.
 *
 * <p>The runs are cut at equal cost: with {@code c_k} the cost of key k (what a step spends on
 * its row: its tokens) and {@code C(k) = c_0 + … + c_(k−1)} of T in all, partition p starts at the
 * key k whose C(k) is nearest p·T/P (of two equally near, the later), so each cut is within half a
 * row of its share and the leaf tasks of a step finish together. When every row costs the same
 * the runs are those of equal row counts, key k of N in partition {@code floor(k·P / N)} (the
 * {@link #ConsecutiveKeys(long, int) count} form, the rule before costs were known: packed
 * language-model blocks keep their layout). The layout is a function of the costs and P only.
 */
public final class ConsecutiveKeys extends Partitioner {

    private static final long serialVersionUID = 1L;

    /** starts[p]: partition p's first key (p ≥ 1; a run may be empty); non-decreasing. */
    private final long[] starts;

    /**
     * Runs of equal row counts: key k of N goes to partition {@code floor(k·P / N)}.
     *
     * @param keys       N, the rows' count (keys are 0 … N − 1)
     * @param partitions P ≥ 1
     */
    public ConsecutiveKeys(long keys, int partitions) {
        checkPartitions(partitions);
        if (keys < 0) {
            throw new IllegalArgumentException("keys must be >= 0, got " + keys);
        }
        this.starts = new long[partitions];
        for (int p = 1; p < partitions; p++) {
            // The first k with k·P ≥ p·N, ceil(p·N / P); p·N stays below 2⁶³ for N < 2³² and P < 2³¹.
            starts[p] = Math.floorDiv(p * keys + partitions - 1, partitions);
        }
    }

    private ConsecutiveKeys(long[] starts) {
        this.starts = starts;
    }

    /**
     * Runs of equal cost, each partition starting at the key whose cost before it is nearest its
     * share (the class comment); when every key costs the same, runs of equal row counts.
     *
     * @param costs      c_k ≥ 0 for each key k, in key order (N = costs.length)
     * @param partitions P ≥ 1
     * @throws IllegalArgumentException naming the key whose cost is negative
     */
    public static ConsecutiveKeys byCost(int[] costs, int partitions) {
        checkPartitions(partitions);
        long total = 0;
        boolean equal = true;
        for (int k = 0; k < costs.length; k++) {
            if (costs[k] < 0) {
                throw new IllegalArgumentException("key " + k + " has cost " + costs[k] + ", expected >= 0");
            }
            total += costs[k];
            equal &= costs[k] == costs[0];
        }
        if (equal || total == 0) {
            return new ConsecutiveKeys(costs.length, partitions);
        }
        long[] starts = new long[partitions];
        long before = 0;
        int k = 0;
        for (int p = 1; p < partitions; p++) {
            // k: the first key with C(k)·P ≥ p·T (exact products: C(k)·P may pass 2⁶³ only on absurd input).
            long share = Math.multiplyExact((long) p, total);
            while (k < costs.length && Math.multiplyExact(before, (long) partitions) < share) {
                before += costs[k++];
            }
            long over = Math.multiplyExact(before, (long) partitions) - share;
            long under = k == 0 ? Long.MAX_VALUE : share - Math.multiplyExact(before - costs[k - 1], (long) partitions);
            starts[p] = Math.max(starts[p - 1], under < over ? k - 1 : k);
        }
        return new ConsecutiveKeys(starts);
    }

    private static void checkPartitions(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
    }

    @Override
    public int numPartitions() {
        return starts.length;
    }

    @Override
    public int getPartition(Object key) {
        long k = (Long) key;
        int at = Arrays.binarySearch(starts, k);
        if (at < 0) {
            return -at - 2;  // the last partition starting before k
        }
        while (at + 1 < starts.length && starts[at + 1] == k) {
            at++;  // empty runs before k's: k is the first key of the last run starting at k
        }
        return at;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConsecutiveKeys c && Arrays.equals(c.starts, starts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(starts);
    }
}
