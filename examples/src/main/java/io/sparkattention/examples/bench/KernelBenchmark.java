package io.sparkattention.examples.bench;

import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.TileOps;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongSupplier;

/**
 * Times the local kernel: BH (row, head) problems of n×d, laid out as one sequence of BH heads
 * (the [B, S, H·d] layout ONNX Runtime's MultiHeadAttention takes), spread over T threads by
 * (head, query block).
 */
public final class KernelBenchmark {

    /**
     * JIT warm-up before timing: the kernel runs on a small problem until the process has spent
     * this much CPU time (and at least this much wall time). Counting CPU time keeps the warm-up
     * long enough on a busy machine, where C2 compiles slowly and the kernel gets a fraction of a core.
     */
    static final long WARMUP_MILLIS = 1500;

    /** Sequence length of the JIT warm-up problem. */
    static final int WARMUP_LENGTH = 512;

    /** Configurations up to this much work first run untimed until their times settle (see {@link Interleaved}). */
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
        Problem p = new Problem(WARMUP_LENGTH, headDim, Math.min(batchHeads, 4), 1);
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            FlashAttention kernel = new FlashAttention(spec, ops, AttentionPath.configured());
            warmUp(() -> kernel.forward(p.shape, p.q, p.k, p.v, RowMask.NONE, p.out, null, pool));
        } finally {
            pool.shutdown();
        }
    }

    /** Warms the JIT up on the backward kernel, on a small problem of the same kind. */
    public void warmUpBackward(int headDim, int batchHeads) {
        try (Trial trial = backwardTrial(new Problem(WARMUP_LENGTH, headDim, Math.min(batchHeads, 4), 1))) {
            warmUp(trial::runOnce);
        }
    }

    /** Runs {@code work} until {@link #WARMUP_MILLIS} have passed and its times have settled. */
    private static void warmUp(Runnable work) {
        Deadline deadline = new Deadline(WARMUP_MILLIS);
        Settling settling = Settling.withQuietCompilers();
        do {
            long c0 = ProcessMemory.cpuNanos(), t0 = System.nanoTime();
            work.run();
            settling.add(c0 < 0 ? System.nanoTime() - t0 : ProcessMemory.cpuNanos() - c0);
        } while (!(deadline.passed() && settling.settled()) && !settling.givenUp());
    }

    /** Times one configuration on its own ({@code repeat} repetitions after an untimed one when short). */
    public BenchResult run(int seqLen, int headDim, int batchHeads) {
        try (Trial trial = trial(new Problem(seqLen, headDim, batchHeads, seqLen))) {
            return Interleaved.time(List.of(trial), repeat).get(0);
        }
    }

    /**
     * One configuration on {@code problem} (shared by every kernel contender of a round: same
     * data, one copy in memory).
     */
    public Trial trial(Problem problem) {
        FlashAttention kernel = new FlashAttention(spec, ops, AttentionPath.configured());
        ForkJoinPool pool = new ForkJoinPool(threads);
        AttentionShape shape = problem.shape;
        int n = shape.queryLength(), d = shape.headDim(), bh = shape.numHeads();
        double flops = BenchResult.flops(n, d, bh, spec.causal());
        return new Trial() {
            @Override
            public void runOnce() {
                kernel.forward(shape, problem.q, problem.k, problem.v, RowMask.NONE, problem.out, null, pool);
            }

            @Override
            public boolean shortRun() {
                return flops <= UNTIMED_RUN_MAX_FLOPS;
            }

            @Override
            public BenchResult result(double[] wallMs, double[] cpuMs) {
                UniformInputs.requireFinite(problem.out, "benchmark");
                return new BenchResult("kernel", n, d, bh, spec.causal(), threads, wallMs, flops, Blas.name())
                    .withCpuTimes(cpuMs, flops)
                    .with("tile_ops", kernel.ops().name())
                    .with("attention_path", kernel.direct(shape) ? "direct" : "tiled")
                    .with("block_q", kernel.queryBlockFor(shape))
                    .with("block_k", kernel.keyBlock())
                    .with("input_mb", Math.round(4.0 * n * d * bh * 4 / (1 << 20)));
            }

            @Override
            public void close() {
                pool.shutdown();
            }
        };
    }

    /**
     * The backward kernel on {@code problem}, with this benchmark's mask, tile arithmetic and
     * threads; the forward's output and log-sum-exp are computed here, untimed.
     */
    public Trial backwardTrial(Problem problem) {
        return new BackwardTrial(new FlashAttention(spec, ops, AttentionPath.configured()), threads, problem);
    }

    /**
     * Tells when a warm-up loop has reached compiled speed: the last {@link #RUNS} iterations
     * each within {@link #SLACK} of the fastest so far. The Vector API code runs 10–100× slower
     * until C2 has compiled it (its fallback paths box every vector), and on a busy machine that
     * took more than 5 s here; a fixed warm-up then times the fallback.
     */
    static final class Settling {
        static final int RUNS = 5;
        static final double SLACK = 1.25;
        static final long GIVE_UP_NANOS = 60_000_000_000L;
        /**
         * With {@link #withQuietCompilers}: the compiler threads must have used at most
         * {@link #QUIET_COMPILER_MILLIS} of CPU over the last runs covering this much wall time.
         */
        static final long QUIET_NANOS = 500_000_000L;
        /** One tick of the per-thread CPU clock ({@link CompilerClock#threadMillis}): 2% of one core over the window. */
        static final long QUIET_COMPILER_MILLIS = CompilerClock.MILLIS_PER_TICK;

        /** Wall time in ns ({@link System#nanoTime}) and the compiler threads' CPU ms ({@link CompilerClock}). */
        private final LongSupplier wallNanos;
        private final LongSupplier compilerMillis;
        private final long start;
        private final long[] last = new long[RUNS];
        private final boolean quietCompilers;
        /** {wall nanos, compiler CPU millis} after each run, from the newest one a window before the last. */
        private final ArrayDeque<long[]> marks = new ArrayDeque<>();
        private long best = Long.MAX_VALUE;
        private int count;

        /** Settled by run times alone. */
        Settling() {
            this(false, System::nanoTime, CompilerClock::threadMillis);
        }

        /** Settling on the given clocks: the JVM's, or a test's. */
        Settling(boolean quietCompilers, LongSupplier wallNanos, LongSupplier compilerMillis) {
            this.quietCompilers = quietCompilers;
            this.wallNanos = wallNanos;
            this.compilerMillis = compilerMillis;
            this.start = wallNanos.getAsLong();
        }

        /**
         * Settled by run times and by the JIT compilers' CPU time (where {@code /proc} tells it):
         * times can settle while the compilers still hold one of two cores, and the runs then go
         * at half speed.
         */
        static Settling withQuietCompilers() {
            return new Settling(CompilerClock.threadMillis() >= 0, System::nanoTime, CompilerClock::threadMillis);
        }

        void add(long nanos) {
            best = Math.min(best, nanos);
            last[count++ % RUNS] = nanos;
            if (quietCompilers) {
                long[] mark = {wallNanos.getAsLong(), compilerMillis.getAsLong()};
                marks.addLast(mark);
                // Keep as the oldest mark the newest one at least a window before this one.
                while (marks.size() > 2 && mark[0] - second(marks)[0] >= QUIET_NANOS) {
                    marks.removeFirst();
                }
            }
        }

        private static long[] second(ArrayDeque<long[]> marks) {
            Iterator<long[]> it = marks.iterator();
            it.next();
            return it.next();
        }

        boolean settled() {
            if (count < RUNS) {
                return false;
            }
            for (long t : last) {
                if (t > best * SLACK) {
                    return false;
                }
            }
            return !quietCompilers || compilersQuiet();
        }

        private boolean compilersQuiet() {
            long[] oldest = marks.peekFirst(), newest = marks.peekLast();
            return newest[0] - oldest[0] >= QUIET_NANOS && newest[1] - oldest[1] <= QUIET_COMPILER_MILLIS;
        }

        boolean givenUp() {
            return wallNanos.getAsLong() - start > GIVE_UP_NANOS;
        }

        /** Runs {@code work} until settled, given up, or {@code budgetMillis} of wall time have passed since this was made. */
        void runUntilSettled(Runnable work, long budgetMillis) {
            while (!settled() && !givenUp() && wallNanos.getAsLong() - start < budgetMillis * 1_000_000) {
                long t0 = wallNanos.getAsLong();
                work.run();
                add(wallNanos.getAsLong() - t0);
            }
        }
    }

    /** Both {@code millis} of wall time and of process CPU time from now (wall time alone where CPU time is unknown). */
    static final class Deadline {
        private final long wallEnd;
        private final long cpuEnd;

        Deadline(long millis) {
            wallEnd = System.nanoTime() + millis * 1_000_000;
            long cpu = ProcessMemory.cpuNanos();
            cpuEnd = cpu < 0 ? Long.MIN_VALUE : cpu + millis * 1_000_000;
        }

        boolean passed() {
            return System.nanoTime() >= wallEnd && ProcessMemory.cpuNanos() >= cpuEnd;
        }
    }

    /** Random Q, K, V of n×(BH·d), seeded, and room for the output. */
    public static final class Problem {
        final AttentionShape shape;
        final float[] q, k, v, out;

        /** BH heads of n×d, values uniform in [−1, 1), seeded by {@code seed}. */
        public Problem(int n, int d, int bh, long seed) {
            shape = AttentionShape.self(n, bh, d);
            SplittableRandom random = new SplittableRandom(seed);
            q = UniformInputs.uniform(shape.querySize(), random);
            k = UniformInputs.uniform(shape.keySize(), random);
            v = UniformInputs.uniform(shape.valueSize(), random);
            out = new float[shape.outputSize()];
        }
    }

    static void resetPeakHeap() {
        System.gc();
        HeapPools.resetPeaks();
    }

    /** Sum of the heap pools' peaks since the last reset (an upper bound of the live peak). */
    static long peakHeapMb() {
        return HeapPools.peakBytes() >> 20;
    }
}
