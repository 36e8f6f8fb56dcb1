package io.sparkattention.exec;

import io.sparkattention.sparkinternal.PartitionLocations;
import org.apache.spark.Partition;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import scala.Option;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link FixedOrderAggregate}'s leaves: cuts the parent's P partitions into {@code leafCount} runs
 * of consecutive ones, in index order ({@link FixedOrderAggregate#runStart}); each run prefers the
 * host that caches most of its partitions.
 */
final class ConsecutiveRuns implements PartitionCoalescer, Serializable {

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
            int from = FixedOrderAggregate.runStart(i, partitions.length, leafCount);
            int to = FixedOrderAggregate.runStart(i + 1, partitions.length, leafCount);
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
