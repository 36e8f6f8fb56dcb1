package io.sparkattention.examples.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The process's peak resident memory (Linux {@code VmHWM}), which also counts native memory that
 * the JVM heap figures miss (ONNX Runtime's arena, OpenBLAS buffers). Writing 5 to
 * {@code /proc/self/clear_refs} resets the peak, so each configuration gets its own figure.
 * Elsewhere both calls do nothing and the peak reads as −1.
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
