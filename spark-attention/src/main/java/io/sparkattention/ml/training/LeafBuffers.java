package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;

import java.lang.ref.SoftReference;

/**
 * The dense buffer of a leaf task's gradient sums, reused by the next leaf task its thread runs:
 * for a fine-tuned MiniLM the dense part is 11 million float64 values (88 MB), which a step would
 * otherwise allocate, zero and leave to the collector once per leaf task. (The driver's total
 * holds no such buffer: {@link io.sparkattention.nn.GradientSums#deferred}.)
 *
 * <p>Why reuse is safe: a Spark executor thread runs a task to its end and hands its result on
 * before it takes another task: a result task's value is serialized by the same thread after the
 * task runs, a shuffle map task's records are written by its shuffle writer within the task, and a
 * value handed by reference in local mode ({@code exec.HandedResult}) holds the leaf's slices,
 * copies, never this buffer. So when a thread's next leaf task takes the buffer, the sums that held
 * it are read no more. The buffer is zeroed when taken
 * ({@link GradientSums#GradientSums(GradientLayout, double[])}) and held softly, so a heap short of
 * memory may take it back between steps.
 */
final class LeafBuffers {

    private static final ThreadLocal<SoftReference<double[]>> LAST = new ThreadLocal<>();

    private LeafBuffers() {
    }

    /**
     * Empty sums over {@code layout} on this thread's buffer, for a leaf task (the previous sums this
     * thread made over it must be read no more).
     */
    static GradientSums emptySums(GradientLayout layout) {
        SoftReference<double[]> held = LAST.get();
        double[] dense = held == null ? null : held.get();
        if (dense == null || dense.length != layout.denseCount()) {
            dense = new double[layout.denseCount()];
            LAST.set(new SoftReference<>(dense));
        }
        return new GradientSums(layout, dense);
    }
}
