package io.sparkattention.sparkinternal;

import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.TaskLocation;
import scala.Option;
import scala.collection.Seq;

/**
 * Where the scheduler would run a partition's task: its cached blocks' executors first, else the
 * RDD's own preferred locations ({@code SparkContext.getPreferredLocs}, {@code private[spark]}).
 * {@code RDD.preferredLocations} alone does not see cached blocks.
 */
public final class PartitionLocations {

    private PartitionLocations() {
    }

    /** The host of {@code rdd}'s partition {@code partition}'s first preferred location, if any. */
    public static Option<String> firstHost(RDD<?> rdd, int partition) {
        Seq<TaskLocation> locations = rdd.context().getPreferredLocs(rdd, partition);
        return locations.isEmpty() ? Option.empty() : Option.apply(locations.head().host());
    }
}
