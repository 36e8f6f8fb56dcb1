package io.sparkattention.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Process-wide figures the JVM's own beans do not give per configuration: the peak resident
 * memory (Linux {@code VmHWM}), which also counts native memory that the heap figures miss (ONNX
 * Runtime's arena, OpenBLAS buffers), and the CPU time of the whole process. Writing 5 to
 * {@code /proc/self/clear_refs} resets the peak, so each configuration gets its own figure.
 * Elsewhere the reset does nothing and the peak reads as −1.
 */
final class ProcessMemory {

    private static final Path STATUS = Paths.get("/proc/self/status");
    private static final Path CLEAR_REFS = Paths.get("/proc/self/clear_refs");

    private ProcessMemory() {
    }

    /** Starts a new peak from the current resident size. */
    static void resetPeak() {
        try {
            Files.write(CLEAR_REFS, "5".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException | SecurityException | UnsupportedOperationException notLinux) {
            // no reset: the figure is the peak since the process started
        }
    }

    /**
     * CPU time of the whole process so far, in nanoseconds (all threads, native ones included),
     * or −1 when the JVM does not report it. On a shared machine the CPU time of a repetition is
     * what the work cost, whatever the wait for a core.
     */
    static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
            ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : -1;
    }

    /** Peak resident set since the last reset, in MiB, or −1 when unknown. */
    static long peakRssMb() {
        try {
            for (String line : Files.readAllLines(STATUS, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
                }
            }
        } catch (IOException | SecurityException | NumberFormatException notLinux) {
            return -1;
        }
        return -1;
    }
}
