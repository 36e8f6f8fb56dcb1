package io.sparkattention.examples.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JIT compilers' accumulated time in this JVM ({@link CompilationMXBean}), to tell when a
 * benchmark's process has stopped compiling. In local mode this JVM is also the executor.
 */
final class CompilerClock {

    private final CompilationMXBean bean = ManagementFactory.getCompilationMXBean();

    /** Milliseconds the compilers have spent so far, or −1 when this JVM does not count them. */
    long millis() {
        return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean.getTotalCompilationTime() : -1;
    }
}
