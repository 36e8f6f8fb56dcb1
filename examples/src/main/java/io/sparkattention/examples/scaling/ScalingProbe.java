package io.sparkattention.examples.scaling;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.examples.bench.HeapPools;
import io.sparkattention.examples.bench.UniformInputs;
import io.sparkattention.kernel.Blas;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Measures one (implementation, n) point in a JVM of its own and prints it as one JSON line; run
 * by {@link ScalingRunner}, one fresh JVM per point, so no point inherits another's heap, JIT
 * state or garbage.
 *
 * <p>Memory, two ways, on a single forward pass after a full GC:
 * <ul>
 *   <li>{@code peak_heap_mb}: the JVM's own account — the heap pools' peak usage during the pass
 *       minus the heap in use before the inputs existed. It counts what the pass holds at once:
 *       Q, K, V, the output and every scratch or score array. {@link ScalingRunner} starts the
 *       JVM with the serial collector and without thread-local allocation buffers, so pool usage
 *       is exact to the object rather than rounded to GC regions or buffers.</li>
 *   <li>{@code allocated_mb}: bytes the measuring thread allocated during the pass
 *       ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), inputs excluded.</li>
 * </ul>
 * Time: the median (and minimum) wall time of {@code repeat} passes (the memory pass is the first),
 * each after a GC, following a warm-up on a small problem that lets the JIT compile the code first.
 *
 * <p>Arguments: {@code impl n d repeat warmupMillis}.
 */
public final class ScalingProbe {

    /** Passes in a row that allocate no more than the least seen: the JIT has compiled the kernel. */
    static final int SETTLED_PASSES = 20;
    /**
     * And no compilation finished for this long: with the Java tiles (AVX-512's default) the
     * allocation of C1's vector code can stay flat for 20 passes before C2 replaces it, and a
     * measured pass in C1's code allocates over ten times what the kernel itself does.
     */
    static final long QUIET_MILLIS = 500;
    /** Longest warm-up, whatever the allocations do. */
    static final long MAX_WARMUP_MILLIS = 60_000;

    /**
     * Sequence length of the warm-up problem: large enough to reach every code path, quick to run.
     * Four key tiles per query block at the kernel's 256×256 tiles, so each pass calls the softmax
     * update 16 times, with and without a rescale: at 256 (one tile, one call) its short per-group
     * loops can still be in C1's allocating code when the allocation already looks settled.
     */
    static final int WARMUP_N = 1024;

    /** Part of the maximum heap a naive score matrix may take before the point is skipped without trying. */
    static final double HEAP_FRACTION = 0.9;

    private static final ObjectMapper JSON = new ObjectMapper();

    private ScalingProbe() {
    }

    /**
     * Measures one point and prints its JSON line.
     *
     * @param args {@code impl n d repeat warmupMillis}
     * @throws Exception when the arguments are malformed (the runner never passes such)
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: ScalingProbe impl n d repeat warmupMillis, got "
                + Arrays.toString(args));
        }
        Implementation impl = Implementation.of(args[0]);
        int n = Integer.parseInt(args[1]);
        int d = Integer.parseInt(args[2]);
        int repeat = Integer.parseInt(args[3]);
        long warmupMillis = Long.parseLong(args[4]);
        System.out.println(JSON.writeValueAsString(measure(impl, n, d, repeat, warmupMillis)));
        System.out.flush();
    }

    static ObjectNode measure(Implementation impl, int n, int d, int repeat, long warmupMillis) {
        ObjectNode point = JSON.createObjectNode();
        point.put("impl", impl.id());
        point.put("seq_len", n);
        point.put("head_dim", d);
        long maxHeap = Runtime.getRuntime().maxMemory();
        point.put("heap_max_mb", maxHeap >> 20);
        point.put("blas", Blas.name());
        long needed = impl.extraBytes(n, d) + 16L * n * d;
        if (impl == Implementation.NAIVE && ((long) n * n > Integer.MAX_VALUE - 8 || needed > HEAP_FRACTION * maxHeap)) {
            return skipped(point, "needs " + (needed >> 20) + " MiB for its n×n scores and inputs; the heap is "
                + (maxHeap >> 20) + " MiB");
        }
        try {
            warmUp(impl, d, warmupMillis);
            // The first query of the memory beans creates them (about 0.2 MiB of short-lived objects):
            // done here, before the GC, so that garbage does not inflate the baseline.
            HeapPools.usedBytes();
            HeapPools.peakBytes();
            System.gc();
            long baseline = HeapPools.usedBytes();
            float[] q = random(n * d, 1), k = random(n * d, 2), v = random(n * d, 3);

            // (0) One untimed pass at this size: code paths that only this shape takes (edge strips,
            // partial tiles) get compiled here, not in the measured pass below.
            impl.run(n, d, q, k, v);

            // (1) Memory of one pass, which is also the first timed pass.
            double[] ms = new double[repeat];
            System.gc();
            HeapPools.resetPeaks();
            long allocatedBefore = allocatedBytes();
            long t0 = System.nanoTime();
            float[] out = impl.run(n, d, q, k, v);
            ms[0] = (System.nanoTime() - t0) / 1e6;
            long allocated = allocatedBytes() - allocatedBefore;
            long peak = HeapPools.peakBytes() - baseline;
            UniformInputs.requireFinite(out, "attention");
            out = null;

            // (2) The other timed passes, each after a GC so none pays for another's garbage.
            for (int r = 1; r < repeat; r++) {
                System.gc();
                t0 = System.nanoTime();
                impl.run(n, d, q, k, v);
                ms[r] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(ms);
            point.put("status", "ok");
            point.put("median_ms", round(repeat % 2 == 1 ? ms[repeat / 2] : (ms[repeat / 2 - 1] + ms[repeat / 2]) / 2));
            point.put("min_ms", round(ms[0]));
            point.put("repeat", repeat);
            point.put("peak_heap_mb", round(peak / 1048576.0));
            point.put("allocated_mb", round(allocated / 1048576.0));
            return point;
        } catch (OutOfMemoryError e) {
            return point.put("status", "out_of_memory").put("reason", "OutOfMemoryError: " + e.getMessage());
        }
    }

    private static ObjectNode skipped(ObjectNode point, String reason) {
        return point.put("status", "skipped").put("reason", reason);
    }

    /**
     * Runs the small problem for at least {@code millis}, and then until the JIT has settled: until
     * {@link #SETTLED_PASSES} passes in a row allocate no more than the least any pass has, and
     * the JIT has finished no compilation for {@link #QUIET_MILLIS}. Until C2 compiles them, Vector
     * API operations allocate a heap object each, so a fixed, short warm-up would measure the
     * interpreter's garbage rather than the kernel's memory.
     */
    private static void warmUp(Implementation impl, int d, long millis) {
        float[] q = random(WARMUP_N * d, 4), k = random(WARMUP_N * d, 5), v = random(WARMUP_N * d, 6);
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime(), lastCompile = start;
        long least = Long.MAX_VALUE, compiled = jitTimed ? jit.getTotalCompilationTime() : 0;
        int settled = 0;
        while (true) {
            long before = allocatedBytes();
            impl.run(WARMUP_N, d, q, k, v);
            long allocated = allocatedBytes() - before;
            settled = allocated <= least ? settled + 1 : 0;
            least = Math.min(least, allocated);
            long now = System.nanoTime();
            if (jitTimed && jit.getTotalCompilationTime() != compiled) {
                compiled = jit.getTotalCompilationTime();
                lastCompile = now;
            }
            long elapsed = (now - start) / 1_000_000;
            boolean quiet = (now - lastCompile) / 1_000_000 >= QUIET_MILLIS;
            if (elapsed >= MAX_WARMUP_MILLIS || elapsed >= millis && settled >= SETTLED_PASSES && quiet) {
                return;
            }
        }
    }

    private static float[] random(int size, long seed) {
        return UniformInputs.uniform(size, new SplittableRandom(seed));
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static double round(double x) {
        return Math.round(x * 1000.0) / 1000.0;
    }
}
