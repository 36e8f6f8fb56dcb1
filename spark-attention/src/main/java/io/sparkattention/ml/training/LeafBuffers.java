package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientSums;

import java.lang.ref.SoftReference;

/**
 * The dense buffer of a leaf task's gradient sums, reused by the next leaf task its thread runs,
 * and of the driver's total, reused by the next step's: for a fine-tuned MiniLM the dense part is
 * 11 million float64 values (88 MB), which a step would otherwise allocate, zero and leave to the
 * collector once per leaf task and once on the driver.
 *
 * <p>Why reuse is safe: a Spark executor thread runs a task to its end and hands its result on
 * before it takes another task: a result task's value is serialized by the same thread after the
 * task runs, a shuffle map task's records are written by its shuffle writer within the task, and a
 * value handed by reference in local mode ({@code exec.HandedResult}) holds the leaf's slices,
 * copies, never this buffer. So when a thread's next leaf task takes the buffer, the sums that held
 * it are read no more. On the driver ({@link Trainer}'s thread, outside any task) a step's total is
 * read by the step's update, which ends before the next step's job makes the next total; a step
 * whose sample had no weight drops its total before the retry's. The buffer is zeroed when taken
 * ({@link GradientSums#GradientSums(GradientSums.Layout, double[])}) and held softly, so a heap
 * short of memory may take it back between steps.
 */
final class LeafBuffers {

    private static final ThreadLocal<SoftReference<double[]>> LAST = new ThreadLocal<>();

    private LeafBuffers() {
    }

    /**
     * Empty sums over {@code layout} on this thread's buffer: a leaf task's, or the driver's total
     * (the previous sums this thread made over it must be read no more).
     */
    static GradientSums emptySums(GradientSums.Layout layout) {
        SoftReference<double[]> held = LAST.get();
        double[] dense = held == null ? null : held.get();
        if (dense == null || dense.length != layout.denseCount()) {
            dense = new double[layout.denseCount()];
            LAST.set(new SoftReference<>(dense));
        }
        return new GradientSums(layout, dense);
    }
}
