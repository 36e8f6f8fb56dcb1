package io.sparkattention.examples.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Rows shared out to T threads one at a time, in order: each thread takes the next row when it
 * finishes one, as Spark's task slots take the next task. How the raw contenders of the Spark
 * benchmarks ({@link RawLayerTrial}, {@link RawEncoderTrial}) spread their rows.
 */
final class RowThreads {

    private RowThreads() {
    }

    /**
     * Runs rows 0 … {@code rows − 1} on {@code threads} threads of {@code pool} and waits for them.
     *
     * @param perThread makes each thread's row function (once per thread, e.g. with its own workspace)
     * @param what      the contender, named when a row fails
     */
    static void run(ForkJoinPool pool, int threads, int rows, Supplier<IntConsumer> perThread, String what) {
        AtomicInteger next = new AtomicInteger();
        List<Callable<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(() -> {
                IntConsumer row = perThread.get();
                for (int i = next.getAndIncrement(); i < rows; i = next.getAndIncrement()) {
                    row.accept(i);
                }
                return null;
            });
        }
        for (Future<Void> done : pool.invokeAll(workers)) {
            try {
                done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + " interrupted", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
            }
        }
    }
}
