package io.sparkattention.examples.bench;

import java.io.File;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * The JIT compilers' time in this JVM, to tell when a benchmark's process has stopped compiling.
 * In local mode this JVM is also the executor.
 */
final class CompilerClock {

    /** Milliseconds per tick of the CPU times in {@code /proc/<pid>/task/<tid>/stat} (USER_HZ, 100 on Linux). */
    static final long MILLIS_PER_TICK = 10;

    private final CompilationMXBean bean = ManagementFactory.getCompilationMXBean();

    /**
     * Milliseconds the compilers have spent on compilations that have <em>finished</em>
     * ({@link CompilationMXBean}), or −1 when this JVM does not count them.
     */
    long millis() {
        return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean.getTotalCompilationTime() : -1;
    }

    /**
     * CPU milliseconds the compiler threads have used so far, compilations in progress included,
     * from Linux's per-thread CPU times (threads named "C1 CompilerThread…" and "C2
     * CompilerThread…"), in ticks of {@link #MILLIS_PER_TICK}; −1 where {@code /proc} does not
     * tell. {@link #millis} counts a compilation only once it ends, so it misses a long C2
     * compilation still under way, which on a 2-vCPU machine takes a core from the repetitions
     * for a second or more.
     */
    static long threadMillis() {
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) {
            return -1;
        }
        long ticks = 0;
        for (File task : tasks) {
            String stat;
            try {
                stat = Files.readString(new File(task, "stat").toPath(), StandardCharsets.US_ASCII);
            } catch (IOException | SecurityException gone) {
                continue;  // a thread that ended since the listing
            }
            // "tid (comm) state ...": comm may hold spaces and parentheses, so split after the last ')'.
            int open = stat.indexOf('('), close = stat.lastIndexOf(')');
            if (open < 0 || close < open) {
                return -1;
            }
            String name = stat.substring(open + 1, close);
            if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
                continue;
            }
            String[] fields = stat.substring(close + 2).split(" ");
            try {
                ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);  // utime, stime
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException notLinux) {
                return -1;
            }
        }
        return ticks * MILLIS_PER_TICK;
    }
}
