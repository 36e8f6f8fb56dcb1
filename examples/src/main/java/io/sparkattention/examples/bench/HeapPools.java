package io.sparkattention.examples.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * The JVM's heap in use and its peak, summed over the heap memory pools (eden, survivor, old).
 * The sum of the pools' peaks is an upper bound of the heap's peak, since the pools need not peak
 * at the same moment; it is what the benchmark and the scaling probe report.
 */
public final class HeapPools {

    private HeapPools() {
    }

    /** @return bytes of heap in use now, garbage not yet collected included */
    public static long usedBytes() {
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                used += pool.getUsage().getUsed();
            }
        }
        return used;
    }

    /** Starts every heap pool's peak again from its current use. */
    public static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** @return the sum of the heap pools' peaks since the last {@link #resetPeaks}, in bytes */
    public static long peakBytes() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }
}
