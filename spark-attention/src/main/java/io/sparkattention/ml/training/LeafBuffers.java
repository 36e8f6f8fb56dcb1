package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientSums;
import org.apache.spark.TaskContext;

import java.lang.ref.SoftReference;

/**
 * The dense buffer of a leaf task's gradient sums, reused by the next leaf task its thread runs:
 * for a fine-tuned MiniLM the dense part is 11 million float64 values (88 MB), which a step would
 * otherwise allocate, zero and leave to the collector once per leaf task.
 *
 * <p>Why reuse is safe: a Spark executor thread runs a task to its end and hands its result on
 * before it takes another task: a result task's value is serialized by the same thread after the
 * task runs, a shuffle map task's records are written by its shuffle writer within the task. So
 * when a thread's next leaf task takes the buffer, the sums that held it have left the thread as
 * bytes and are read no more. Outside a task (the driver's own sums) every call gets a new buffer.
 * The buffer is zeroed when taken ({@link GradientSums#GradientSums(GradientSums.Layout, double[])})
 * and held softly, so a heap short of memory may take it back between steps.
 */
final class LeafBuffers {

    private static final ThreadLocal<SoftReference<double[]>> LAST = new ThreadLocal<>();

    private LeafBuffers() {
    }

    /** Empty sums over {@code layout}: in a Spark task over this thread's buffer, elsewhere over a new one. */
    static GradientSums emptySums(GradientSums.Layout layout) {
        if (TaskContext.get() == null) {
            return new GradientSums(layout);
        }
        SoftReference<double[]> held = LAST.get();
        double[] dense = held == null ? null : held.get();
        if (dense == null || dense.length != layout.denseCount()) {
            dense = new double[layout.denseCount()];
            LAST.set(new SoftReference<>(dense));
        }
        return new GradientSums(layout, dense);
    }
}
