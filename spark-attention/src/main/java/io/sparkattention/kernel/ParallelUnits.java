package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The parallel scheduler of the kernel's pool variants: units of work handed out one at a time,
 * in a fixed order, to at most {@code pool.getParallelism()} workers, each with its own
 * {@link Workspace}. Units write disjoint parts of the outputs and each unit's arithmetic does not
 * depend on the thread that runs it, so a parallel call gives the bits of the sequential one.
 *
 * <p>Balance: callers order the units largest first (a query block's cost is the number of keys
 * it can see, so causal blocks near the end of the sequence go first); the cheap units at the end
 * fill the gaps, and no thread waits long for another.
 */
final class ParallelUnits {

    /** One scratch per pool thread, reused across calls. */
    private static final ThreadLocal<Workspace> WORKSPACES = ThreadLocal.withInitial(Workspace::new);

    /** One unit of work. */
    @FunctionalInterface
    interface Unit {
        /** Runs unit {@code index} with the calling thread's scratch, already prepared. */
        void run(int index, Workspace ws);
    }

    /** Grows a worker's scratch before its first unit. */
    @FunctionalInterface
    interface Prepare {
        void prepare(Workspace ws);
    }

    private ParallelUnits() {
    }

    /** Runs units {@code [0, count)} on {@code pool}, handed out in index order, and waits for all. */
    static void run(ForkJoinPool pool, int count, Prepare prepare, Unit unit) {
        AtomicInteger next = new AtomicInteger();
        Runnable worker = () -> {
            Workspace ws = WORKSPACES.get();
            prepare.prepare(ws);
            for (int i; (i = next.getAndIncrement()) < count; ) {
                unit.run(i, ws);
            }
        };
        int workers = Math.max(1, Math.min(pool.getParallelism(), count));
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[workers];
        for (int i = 0; i < workers; i++) {
            tasks[i] = pool.submit(worker);
        }
        for (ForkJoinTask<?> task : tasks) {
            task.join();
        }
    }

    /**
     * The query blocks of {@code L} rows in blocks of {@code Bq}, by decreasing number of keys the
     * band lets them see (ties in block order).
     */
    static int[] blocksLargestFirst(KeyBand band, int L, int S, int Bq) {
        int blocks = (L + Bq - 1) / Bq;
        long[] cost = new long[blocks];
        for (int b = 0; b < blocks; b++) {
            long first = (long) b * Bq, last = Math.min(L, first + Bq) - 1;
            cost[b] = Math.max(0, Math.min(S, band.hi(last) + 1) - Math.max(0, band.lo(first)));
        }
        return largestFirst(cost);
    }

    /** The indices of {@code cost} by decreasing cost (ties in index order). */
    static int[] largestFirst(long[] cost) {
        Integer[] order = new Integer[cost.length];
        for (int i = 0; i < cost.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(cost[y], cost[x]));
        return Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    }
}
