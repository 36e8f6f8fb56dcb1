package io.sparkattention.kernel;

import io.sparkattention.bert.EncoderMath;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The projections' micro-kernel keeps its accumulators in registers in a JVM that also runs the
 * encoder's GELU and LayerNorm (as fine-tuning's executors do). On JDK 17 a second float vector
 * shape anywhere in the JVM makes C2 box the kernel's accumulators on the heap at every block's
 * end (about 80 KB a 53×384×384 product, at some 0.6 of the kernel's speed); the Vector API code
 * reads and writes floats in one shape, so once compiled a product allocates nothing beyond its
 * tile buffers. Compilation takes its time: the product is repeated until its allocation settles.
 */
class KernelAllocationTest {

    /** Products tried before the allocation must have settled (C2 compiles the kernel within a few hundred). */
    private static final int MAX_ROUNDS = 60;
    private static final int PRODUCTS_PER_ROUND = 50;

    @Test
    void aCompiledProductAllocatesOnlyItsTileBuffersBesideTheEncodersMath() {
        LinearKernel kernel = LinearKernel.named("vector");
        Assumptions.assumeTrue(kernel.name().startsWith("vector"), "the Vector API kernel runs on this JVM");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        int m = 53, n = 384, k = 384, rows = 53;
        SplittableRandom random = new SplittableRandom(5);
        float[] w = values(random, n * k), x = values(random, m * k), y = new float[m * n];
        float[] h = values(random, rows * 4 * n), states = values(random, rows * n), gamma = values(random, n);
        float[] beta = values(random, n);
        float[] packed = kernel.pack(w, n, k);
        EncoderMath math = EncoderMath.get();
        long tid = Thread.currentThread().getId();
        long perProduct = Long.MAX_VALUE;
        // A product's own buffers: one 6×PANEL tile and one short block of rows (53 = 8·6 + 5).
        long tiles = 2L * 8 * 1024;
        for (int round = 0; round < MAX_ROUNDS && perProduct > tiles; round++) {
            for (int i = 0; i < PRODUCTS_PER_ROUND / 5; i++) {
                math.gelu(h, h.length);
                math.layerNorm(states, null, rows, n, gamma, beta, 1e-12f);
            }
            long before = threads.getThreadAllocatedBytes(tid);
            for (int i = 0; i < PRODUCTS_PER_ROUND; i++) {
                kernel.multiplyAdd(m, n, k, x, packed, y, 0);
            }
            perProduct = (threads.getThreadAllocatedBytes(tid) - before) / PRODUCTS_PER_ROUND;
        }
        assertTrue(perProduct <= tiles, "a " + m + "×" + n + "×" + k + " product still allocates "
            + perProduct + " bytes after " + MAX_ROUNDS * PRODUCTS_PER_ROUND + " products (its tiles: at most "
            + tiles + "): C2 boxes its accumulators");
    }

    private static float[] values(SplittableRandom random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return a;
    }
}
