package io.sparkattention.exec;

import org.apache.spark.Partitioner;

/**
 * Spreads records over the unit stages' partitions by their row and slot:
 * {@code (row.spread + slot) mod n}. A row's units have consecutive slots, so they go
 * round-robin over the partitions from a row-dependent start: one long row's units are spread
 * evenly however few rows there are, and many rows start at different partitions. Depends on
 * the key alone, so every attempt routes a record to the same partition.
 */
final class SlotPartitioner extends Partitioner {

    private static final long serialVersionUID = 1L;

    private final int partitions;

    SlotPartitioner(int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        this.partitions = partitions;
    }

    @Override
    public int numPartitions() {
        return partitions;
    }

    @Override
    public int getPartition(Object key) {
        UnitKey k = (UnitKey) key;
        return Math.floorMod(k.row().spread() + k.slot(), partitions);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotPartitioner && ((SlotPartitioner) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
        return partitions;
    }
}
