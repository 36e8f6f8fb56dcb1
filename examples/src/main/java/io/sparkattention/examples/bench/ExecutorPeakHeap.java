package io.sparkattention.examples.bench;

import org.apache.spark.executor.ExecutorMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerStageExecutorMetrics;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.jdk.javaapi.CollectionConverters;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The executors' peak JVM heap use, from Spark's executor metrics ({@code JVMHeapMemory}: heap in
 * use, garbage included, sampled every {@code spark.executor.metrics.pollingInterval}) as they
 * arrive with task ends, heartbeats and stage ends. The driver is not counted.
 */
final class ExecutorPeakHeap extends SparkListener {

    private static final String METRIC = "JVMHeapMemory";

    private final Map<String, Long> peaks = new ConcurrentHashMap<>();

    /** Clears the peaks (between benchmark configurations). */
    void reset() {
        peaks.clear();
    }

    /** The largest peak over executors, in MiB; −1 when no executor reported one (local mode). */
    long maxMb() {
        return peaks.values().stream().mapToLong(Long::longValue).max().orElse(-1L << 20) >> 20;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
        update(event.taskInfo().executorId(), event.taskExecutorMetrics());
    }

    @Override
    public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate event) {
        for (ExecutorMetrics m : CollectionConverters.asJava(event.executorUpdates()).values()) {
            update(event.execId(), m);
        }
    }

    @Override
    public void onStageExecutorMetrics(SparkListenerStageExecutorMetrics event) {
        update(event.execId(), event.executorMetrics());
    }

    private void update(String executor, ExecutorMetrics metrics) {
        if (metrics == null || "driver".equals(executor)) {
            return;
        }
        long heap = metrics.getMetricValue(METRIC);
        if (heap > 0) {
            peaks.merge(executor, heap, Math::max);
        }
    }
}
