package io.sparkattention.examples.bench;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    @DisplayName("with quiet compilers: settled times count only after half a second of watching the compilers, and "
        + "compiler work restarts the window")
    void quietCompilersNeedTheirWindow() {
        // Synthetic clocks: each run takes 1 ms of a 100 ms step of wall time.
        long step = KernelBenchmark.Settling.QUIET_NANOS / 5;
        long[] wall = {0};
        long[] compilers = {0};
        KernelBenchmark.Settling settling = new KernelBenchmark.Settling(true, () -> wall[0], () -> compilers[0]);
        for (int i = 1; i <= 5; i++) {
            wall[0] += step;
            settling.add(1_000_000);
            assertFalse(settling.settled(), "run " + i + ": " + (i - 1) * step / 1e6 + " ms of marks, fewer than 500");
        }
        wall[0] += step;
        settling.add(1_000_000);
        assertTrue(settling.settled(), "equal runs over half a second of quiet compilers");
        // The compilers take two ticks before the next run: not settled until the runs after it span a window.
        compilers[0] += 2 * KernelBenchmark.Settling.QUIET_COMPILER_MILLIS;
        for (int i = 1; i <= 5; i++) {
            wall[0] += step;
            settling.add(1_000_000);
            assertFalse(settling.settled(), "run " + i + " after the compilers' work");
        }
        wall[0] += step;
        settling.add(1_000_000);
        assertTrue(settling.settled(), "half a second after the compilers' work");
    }

    @Test
    @DisplayName("runUntilSettled stops once settled, or at its budget of wall time when never")
    void runUntilSettledStops() {
        long step = KernelBenchmark.Settling.QUIET_NANOS / 5;
        long[] wall = {0};
        long[] compilers = {0};
        int[] runs = {0};
        new KernelBenchmark.Settling(true, () -> wall[0], () -> compilers[0]).runUntilSettled(() -> {
            wall[0] += step;
            runs[0]++;
        }, 30_000);
        assertEquals(6, runs[0], "settled after six runs of 100 ms");
        runs[0] = 0;
        KernelBenchmark.Settling busy = new KernelBenchmark.Settling(true, () -> wall[0], () -> compilers[0]);
        busy.runUntilSettled(() -> {
            wall[0] += step;
            compilers[0] += KernelBenchmark.Settling.QUIET_COMPILER_MILLIS;
            runs[0]++;
        }, 2_000);
        assertFalse(busy.settled(), "the compilers never rest");
        assertEquals(2_000_000_000L / step, runs[0], "runs until the 2 s budget");
    }

    @Test
    @DisplayName("the compiler threads' CPU clock counts from the JVM's start and never goes back")
    void compilerThreadClock() {
        long first = CompilerClock.threadMillis();
        assumeTrue(first >= 0, "no per-thread CPU times in /proc here");
        assertTrue(first % CompilerClock.MILLIS_PER_TICK == 0, "whole ticks: " + first);
        assertTrue(CompilerClock.threadMillis() >= first);
    }
}
