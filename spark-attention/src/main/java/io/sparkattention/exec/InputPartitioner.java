package io.sparkattention.exec;

import org.apache.spark.Partitioner;

/**
 * Sends every record of a row to the row's input partition, for the assembly: the output has the
 * input's partitions, each holding the rows it held before (their order inside it may differ).
 */
final class InputPartitioner extends Partitioner {

    private static final long serialVersionUID = 1L;

    private final int partitions;

    InputPartitioner(int partitions) {
        this.partitions = Math.max(1, partitions);
    }

    @Override
    public int numPartitions() {
        return partitions;
    }

    @Override
    public int getPartition(Object key) {
        return ((UnitKey) key).row().partition();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof InputPartitioner && ((InputPartitioner) o).partitions == partitions;
    }

    @Override
    public int hashCode() {
        return 31 + partitions;
    }
}
