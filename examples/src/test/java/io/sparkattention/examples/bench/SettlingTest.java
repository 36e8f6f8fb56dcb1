package io.sparkattention.examples.bench;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** When the benchmark's untimed runs may stop: settled times, and with quiet compilers a quiet JIT. */
class SettlingTest {

    @Test
    @DisplayName("by times alone: five runs in a row within 1.25x of the fastest")
    void byTimes() {
        KernelBenchmark.Settling settling = new KernelBenchmark.Settling();
        for (long ms : new long[] {9, 5, 5, 6, 5}) {
            assertFalse(settling.settled());
            settling.add(ms * 1_000_000);
        }
        assertFalse(settling.settled(), "the 9 ms run is among the last five");
        settling.add(5_000_000);
        assertTrue(settling.settled());
        settling.add(7_000_000);
        assertFalse(settling.settled(), "7 ms is beyond 1.25 x 5 ms");
    }

    @Test
    @DisplayName("with quiet compilers: settled times count only after half a second of watching the compilers")
    void quietCompilersNeedTheirWindow() throws InterruptedException {
        assumeTrue(CompilerClock.threadMillis() >= 0, "no per-thread CPU times in /proc here");
        KernelBenchmark.Settling settling = KernelBenchmark.Settling.withQuietCompilers();
        for (int i = 0; i < 6; i++) {
            settling.add(1_000_000);
        }
        assertFalse(settling.settled(), "six equal runs within a millisecond: the window has not passed");
        KernelBenchmark.Settling sleeps = KernelBenchmark.Settling.withQuietCompilers();
        long start = System.nanoTime();
        sleeps.runUntilSettled(() -> sleep(20), 30_000);
        long waited = System.nanoTime() - start;
        assertTrue(sleeps.settled(), "runs that compile nothing settle: " + waited / 1e6 + " ms");
        assertTrue(waited >= KernelBenchmark.Settling.QUIET_NANOS,
            "but only after half a second of them: " + waited / 1e6 + " ms");
    }

    @Test
    @DisplayName("the compiler threads' CPU clock counts from the JVM's start and never goes back")
    void compilerThreadClock() {
        long first = CompilerClock.threadMillis();
        assumeTrue(first >= 0, "no per-thread CPU times in /proc here");
        assertTrue(first % CompilerClock.MILLIS_PER_TICK == 0, "whole ticks: " + first);
        assertTrue(CompilerClock.threadMillis() >= first);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
