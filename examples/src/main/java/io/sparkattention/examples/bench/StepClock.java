package io.sparkattention.examples.bench;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The submission times of the Spark jobs run in one job group, as the scheduler stamped them
 * (milliseconds). Listener events arrive asynchronously, in order: {@link #startsOf} runs one
 * marker job in a second group and waits for its start, after which every earlier job's start has
 * arrived.
 */
final class StepClock extends SparkListener {

    /** The job property that holds a job's group (Spark's {@code SparkContext.SPARK_JOB_GROUP_ID}). */
    static final String JOB_GROUP_PROPERTY = "spark.jobGroup.id";

    /** Longest wait for the marker job's start event. */
    static final long MARKER_TIMEOUT_MILLIS = 60_000;

    private final String group;
    private final String markerGroup;
    private final List<Long> starts = new ArrayList<>();
    private boolean markerSeen;

    /** A clock of the jobs in {@code group}; register it with {@code addSparkListener}. */
    StepClock(String group) {
        this.group = group;
        this.markerGroup = group + " (end)";
    }

    @Override
    public synchronized void onJobStart(SparkListenerJobStart event) {
        Properties props = event.properties();
        String jobGroup = props == null ? null : props.getProperty(JOB_GROUP_PROPERTY);
        if (group.equals(jobGroup)) {
            starts.add(event.time());
        } else if (markerGroup.equals(jobGroup)) {
            markerSeen = true;
            notifyAll();
        }
    }

    /**
     * The start times of the group's jobs so far, oldest first, once every one of them has been
     * delivered to this listener.
     *
     * @throws IllegalStateException when the events do not arrive within {@link #MARKER_TIMEOUT_MILLIS}
     */
    List<Long> startsOf(SparkContext sc) {
        sc.setJobGroup(markerGroup, "marks the end of " + group, false);
        try {
            JavaSparkContext.fromSparkContext(sc).parallelize(List.of(0), 1).count();
        } finally {
            sc.clearJobGroup();
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MARKER_TIMEOUT_MILLIS);
        synchronized (this) {
            while (!markerSeen) {
                long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                if (left <= 0) {
                    throw new IllegalStateException("Spark's listener bus did not deliver the job start events of "
                        + group + " within " + MARKER_TIMEOUT_MILLIS + " ms");
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for Spark's job events", e);
                }
            }
            return new ArrayList<>(starts);
        }
    }
}
