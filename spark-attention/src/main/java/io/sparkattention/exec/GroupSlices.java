package io.sparkattention.exec;

import org.apache.spark.Partitioner;

/**
 * {@link FixedOrderAggregate}'s merge tasks: the record keyed {@code leaf × slices + s} (slice s of
 * leaf {@code leaf}'s result) goes to task {@code (leaf / size) × slices + s}, the task of slice s
 * of the leaf's group of {@code size} consecutive leaves. Within a task the keys, sorted, run in
 * leaf order.
 */
final class GroupSlices extends Partitioner {

    private static final long serialVersionUID = 1L;

    private final int groups;
    private final int size;
    private final int slices;

    GroupSlices(int leaves, int size, int slices) {
        this.groups = FixedOrderAggregate.groupCount(leaves, size);
        this.size = size;
        this.slices = slices;
    }

    /** The key of slice {@code s} of leaf {@code leaf}'s result. */
    static long key(int leaf, int s, int slices) {
        return (long) leaf * slices + s;
    }

    @Override
    public int numPartitions() {
        return groups * slices;
    }

    @Override
    public int getPartition(Object key) {
        long k = (Long) key;
        int leaf = (int) (k / slices);
        int s = (int) (k % slices);
        return leaf / size * slices + s;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GroupSlices g && g.groups == groups && g.size == size && g.slices == slices;
    }

    @Override
    public int hashCode() {
        return (31 * groups + size) * 31 + slices;
    }
}
