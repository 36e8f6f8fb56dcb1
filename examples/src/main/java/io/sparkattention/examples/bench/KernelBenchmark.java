package io.sparkattention.examples.bench;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.TileOps;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;

/**
 * Times the local kernel: BH (row, head) problems of n×d, laid out as one sequence of BH heads
 * (the [B, S, H·d] layout ONNX Runtime's MultiHeadAttention takes), spread over T threads by
 * (head, query block).
 */
public final class KernelBenchmark {

    /** JIT warm-up before timing: the kernel runs on a small problem for at least this long. */
    static final long WARMUP_MILLIS = 1500;

    /** Configurations up to this much work (a few seconds at most) get one untimed run first. */
    static final double UNTIMED_RUN_MAX_FLOPS = 5e10;

    private final AttentionSpec spec;
    private final TileOps ops;
    private final int threads;
    private final int repeat;

    /** A benchmark of the JVM's chosen tile arithmetic ({@link TileOps#get()}). */
    public KernelBenchmark(AttentionSpec spec, int threads, int repeat) {
        this(spec, TileOps.get(), threads, repeat);
    }

    /** A benchmark of the given tile arithmetic. */
    public KernelBenchmark(AttentionSpec spec, TileOps ops, int threads, int repeat) {
        this.spec = spec;
        this.ops = ops;
        this.threads = threads;
        this.repeat = repeat;
    }

    /** Warms the JIT up on a small problem of the same kind. */
    public void warmUp(int headDim, int batchHeads) {
        int n = 512;
        Problem p = new Problem(n, headDim, Math.min(batchHeads, 4), 1);
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            long end = System.nanoTime() + WARMUP_MILLIS * 1_000_000;
            FlashAttention kernel = new FlashAttention(spec, ops);
            while (System.nanoTime() < end) {
                kernel.forward(p.shape, p.q, p.k, p.v, RowMask.NONE, p.out, null, pool);
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Times one configuration. */
    public BenchResult run(int seqLen, int headDim, int batchHeads) {
        Problem p = new Problem(seqLen, headDim, batchHeads, seqLen);
        FlashAttention kernel = new FlashAttention(spec, ops);
        ForkJoinPool pool = new ForkJoinPool(threads);
        double[] times = new double[repeat];
        try {
            // One untimed run at this size when it is short: the small warm-up does not touch
            // every code path (tails, cache footprint), and the JIT may still be compiling on a
            // busy machine. Long configurations are their own warm-up.
            if (BenchResult.flops(seqLen, headDim, batchHeads, spec.causal()) <= UNTIMED_RUN_MAX_FLOPS) {
                kernel.forward(p.shape, p.q, p.k, p.v, RowMask.NONE, p.out, null, pool);
            }
            resetPeakHeap();
            ProcessMemory.resetPeak();
            for (int r = 0; r < repeat; r++) {
                long t0 = System.nanoTime();
                kernel.forward(p.shape, p.q, p.k, p.v, RowMask.NONE, p.out, null, pool);
                times[r] = (System.nanoTime() - t0) / 1e6;
            }
        } finally {
            pool.shutdown();
        }
        checkFinite(p.out);
        return new BenchResult("kernel", seqLen, headDim, batchHeads, spec.causal(), threads, times,
            BenchResult.flops(seqLen, headDim, batchHeads, spec.causal()), Blas.name())
            .with("tile_ops", kernel.ops().name())
            .with("block_q", spec.queryBlock())
            .with("block_k", spec.keyBlock())
            .with("input_mb", Math.round(4.0 * seqLen * headDim * batchHeads * 4 / (1 << 20)))
            .with("peak_heap_mb", peakHeapMb())
            .with("peak_rss_mb", ProcessMemory.peakRssMb());
    }

    /** Random Q, K, V of n×(BH·d), seeded. */
    private static final class Problem {
        final AttentionShape shape;
        final float[] q, k, v, out;

        Problem(int n, int d, int bh, long seed) {
            shape = AttentionShape.self(n, bh, d);
            SplittableRandom random = new SplittableRandom(seed);
            q = random(shape.querySize(), random);
            k = random(shape.keySize(), random);
            v = random(shape.valueSize(), random);
            out = new float[shape.outputSize()];
        }

        private static float[] random(int size, SplittableRandom random) {
            float[] x = new float[size];
            for (int i = 0; i < size; i++) {
                x[i] = (float) (random.nextDouble() * 2 - 1);
            }
            return x;
        }
    }

    private static void checkFinite(float[] out) {
        for (float x : out) {
            if (!Float.isFinite(x)) {
                throw new IllegalStateException("benchmark produced a non-finite output");
            }
        }
    }

    static void resetPeakHeap() {
        System.gc();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** Sum of the heap pools' peaks since the last reset (an upper bound of the live peak). */
    static long peakHeapMb() {
        long bytes = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                bytes += pool.getPeakUsage().getUsed();
            }
        }
        return bytes >> 20;
    }
}
