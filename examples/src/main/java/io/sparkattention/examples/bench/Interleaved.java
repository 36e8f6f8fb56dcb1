package io.sparkattention.examples.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Times several contenders on the same configuration round-robin: repetition r of every
 * contender runs before repetition r + 1 of any. On a shared machine the load changes by the
 * second; interleaving exposes every contender to the same changes, so their ratios hold even
 * when the absolute times do not. Each short contender first runs untimed until its times settle
 * and the JIT compilers are quiet (JIT, first-run allocations in ONNX Runtime): a contender warmed
 * up at one length still runs its first repetitions at another up to twice as slow, and times can
 * settle while the compilers still hold one of two cores.
 *
 * <p>Memory: the heap and resident peaks are taken over the whole round, so they cover every
 * contender's inputs at once; compare memory between runs with a single contender.
 */
public final class Interleaved {

    /**
     * Most wall time of a short contender's untimed runs (a short one is at most
     * {@link KernelBenchmark#UNTIMED_RUN_MAX_FLOPS}, about 0.6 s a run here). They end sooner once
     * the run times have settled and the JIT compilers have been quiet for half a second
     * ({@link KernelBenchmark.Settling#withQuietCompilers}).
     */
    static final long SETTLING_BUDGET_MILLIS = 20_000;

    private Interleaved() {
    }

    /** Runs {@code repeat} rounds over {@code trials} and returns their results in order. */
    public static List<BenchResult> time(List<Trial> trials, int repeat) {
        for (Trial t : trials) {
            if (t.shortRun()) {
                KernelBenchmark.Settling.withQuietCompilers().runUntilSettled(t::runOnce, SETTLING_BUDGET_MILLIS);
            }
        }
        // Then untimed rounds of all of them: a later contender's settling can make C2 recompile
        // code an earlier one runs (a new branch taken, a second implementation seen), which
        // would otherwise go on into the first timed rounds.
        if (trials.size() > 1 && trials.stream().allMatch(Trial::shortRun)) {
            KernelBenchmark.Settling.withQuietCompilers().runUntilSettled(() -> trials.forEach(Trial::runOnce),
                SETTLING_BUDGET_MILLIS);
        }
        KernelBenchmark.resetPeakHeap();
        ProcessMemory.resetPeak();
        double[][] wall = new double[trials.size()][repeat];
        double[][] cpu = new double[trials.size()][repeat];
        for (int r = 0; r < repeat; r++) {
            for (int i = 0; i < trials.size(); i++) {
                long c0 = ProcessMemory.cpuNanos();
                long t0 = System.nanoTime();
                trials.get(i).runOnce();
                wall[i][r] = (System.nanoTime() - t0) / 1e6;
                cpu[i][r] = (ProcessMemory.cpuNanos() - c0) / 1e6;
            }
        }
        long heap = KernelBenchmark.peakHeapMb(), rss = ProcessMemory.peakRssMb();
        List<BenchResult> results = new ArrayList<>();
        for (int i = 0; i < trials.size(); i++) {
            results.add(trials.get(i).result(wall[i], cpu[i])
                .with("peak_heap_mb", heap)
                .with("peak_rss_mb", rss)
                .with("contenders", trials.size()));
        }
        return results;
    }
}
