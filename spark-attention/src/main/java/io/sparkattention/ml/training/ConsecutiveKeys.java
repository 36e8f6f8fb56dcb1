package io.sparkattention.ml.training;

import org.apache.spark.Partitioner;

/**
 * How a family lays out its training rows: key k of N (a row's position in the training data,
 * a {@code Long}) goes to partition {@code floor(k·P / N)}, so the P partitions hold runs of
 * consecutive keys whatever the input's partitioning, and a step's fixed-order sums see the rows
 * in key order.
 */
public final class ConsecutiveKeys extends Partitioner {

    private static final long serialVersionUID = 1L;

    private final long keys;
    private final int partitions;

    /**
     * @param keys       N, the rows' count (keys are 0 … N − 1)
     * @param partitions P ≥ 1
     */
    public ConsecutiveKeys(long keys, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        this.keys = keys;
        this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
        return partitions;
    }

    @Override
    public int getPartition(Object key) {
        // k·P stays below 2⁶³ for any k < N < 2³² keys and P < 2³¹ partitions.
        return (int) ((Long) key * partitions / keys);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConsecutiveKeys c && c.keys == keys && c.partitions == partitions;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(keys) * 31 + partitions;
    }
}
