package io.sparkattention.examples.bench;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.function.BiFunction;

/**
 * The machine's fp32 FMA rate as a contender ({@code bench --peer fma}): chains of independent
 * vector FMAs on {@code threads} threads, as many flops per repetition as the configuration's
 * attention, timed round-robin with the kernel and ORT. Its GFLOP/s is the ceiling every
 * contender is measured against <em>in the same seconds</em>.
 *
 * <p>Why in the same run: on a 2-vCPU guest the host at times schedules both vCPUs onto one
 * physical core, and for those seconds two threads get one core's FMA throughput. A peak
 * measured minutes apart cannot tell such seconds from a slow contender.
 */
public final class FmaPeak {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    /**
     * Independent accumulators per thread: enough to cover the FMA latency times its issue width
     * (4 cycles × 2 FMA pipes on Zen 3 and Zen 4, 8 in flight) with room to spare, and few enough
     * to stay in the 16 registers of AVX2.
     */
    static final int CHAINS = 12;
    /**
     * Steps per call of {@link #chains}: about 2 µs at 116 GFLOP/s with 16 lanes, so the call and
     * its final sum cost under 1%, and the ~600 calls C2 waits for before compiling the method
     * whole come within the first 0.1 GFLOP. Longer calls leave C2 with only an on-stack-replacement
     * compilation of the loop, whose vectors are boxed, when the timed repetitions begin.
     */
    static final int STEPS_PER_CALL = 512;

    private FmaPeak() {
    }

    /** Flops of one step of {@link #chains}: one FMA per chain, two flops per lane. */
    static double flopsPerStep() {
        return 2.0 * CHAINS * SPECIES.length();
    }

    /**
     * A contender doing an attention configuration's flops on {@code threads} threads. Its line
     * carries the configuration it stands beside (seq_len, head_dim, batch_heads, causal).
     */
    public static Trial trial(int seqLen, int headDim, int batchHeads, boolean causal, int threads) {
        return trial(BenchResult.flops(seqLen, headDim, batchHeads, causal), threads,
            (wallMs, flops) -> new BenchResult("fma", seqLen, headDim, batchHeads, causal, threads, wallMs, flops,
                "none"));
    }

    /**
     * Most work of one repetition of the loop beside a long contender (an encoder over thousands of
     * texts, a fine-tuning step): about 1.3 s at 400 GFLOP/s, long enough to average over the
     * host's scheduling, short enough not to double the run. The rate, not the work, is compared.
     */
    static final double MAX_FLOPS_BESIDE = 5e11;

    /**
     * The loop beside a contender doing {@code work} flops per repetition, on {@code threads}
     * threads: at most {@link #MAX_FLOPS_BESIDE} per repetition, its line mode "fma" with threads,
     * times, gflops and flops ({@link BenchResult#timed}).
     */
    public static Trial beside(double work, int threads) {
        return trial(Math.min(work, MAX_FLOPS_BESIDE), threads,
            (wallMs, flops) -> BenchResult.timed("fma", threads, wallMs, flops, "none"));
    }

    /**
     * Adds {@code fraction_of_fma} to each of {@code lines}: its {@code gflops} over the loop's in the
     * same run, rounded to 0.001 (the contender's work over its time, as a share of the machine's
     * FMA rate on the same threads).
     */
    public static void addFractions(List<BenchResult> lines, BenchResult loop) {
        for (BenchResult line : lines) {
            line.with("fraction_of_fma", Math.round(line.gflops() / loop.gflops() * 1000) / 1000.0);
        }
    }

    /**
     * A contender doing {@code target} flops (at least one step per thread) on {@code threads}
     * threads: as many as the contender it stands beside does in a repetition.
     *
     * @param line the line of its timed repetitions and the flops of one, before the FMA fields
     */
    public static Trial trial(double target, int threads, BiFunction<double[], Double, BenchResult> line) {
        long steps = Math.max(1, Math.round(target / flopsPerStep() / threads));
        double flops = steps * flopsPerStep() * threads;
        ForkJoinPool pool = new ForkJoinPool(threads);
        return new Trial() {
            private float sink;

            @Override
            public void runOnce() {
                ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[threads];
                float[] results = new float[threads];
                for (int i = 0; i < threads; i++) {
                    int slot = i;
                    tasks[i] = pool.submit(() -> results[slot] = run(steps));
                }
                for (ForkJoinTask<?> task : tasks) {
                    task.join();
                }
                for (float r : results) {
                    sink += r;
                }
            }

            @Override
            public boolean shortRun() {
                return flops <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
            }

            @Override
            public BenchResult result(double[] wallMs, double[] cpuMs) {
                if (!Float.isFinite(sink)) {
                    throw new IllegalStateException("the FMA loop diverged: " + sink);
                }
                return line.apply(wallMs, flops)
                    .withCpuTimes(cpuMs, flops)
                    .with("flops", flops)
                    .with("vector_bits", SPECIES.vectorBitSize())
                    .with("chains", CHAINS);
            }

            @Override
            public void close() {
                pool.shutdown();
            }
        };
    }

    /**
     * {@code steps} steps of {@link #chains} in calls of at most {@link #STEPS_PER_CALL}: a method
     * called many times is compiled whole, with its vectors in registers; one long call would run
     * in an on-stack-replacement compilation, which boxes them. The first
     * repetition of a configuration too large for untimed runs includes the compilation.
     */
    static float run(long steps) {
        float sum = 0;
        for (long done = 0; done < steps; done += STEPS_PER_CALL) {
            sum += chains((int) Math.min(STEPS_PER_CALL, steps - done));
        }
        return sum;
    }

    /**
     * {@code steps} rounds of one FMA on each of {@link #CHAINS} accumulators; returns their sum
     * (so nothing is dead code). Each step is {@code a ← x·y + a}, the accumulator as the addend,
     * as in a GEMM micro-kernel: x86's {@code vfmadd231ps} then updates it in place. The form
     * {@code a ← a·x + y} (the accumulator as a factor) made C2 on JDK 17 copy y into a fresh
     * register for every FMA and, with AVX2's 16 registers, spill the accumulators to the stack,
     * reading about 0.7 of the core's peak. A call adds at most {@link #STEPS_PER_CALL}·x·y ≈ 0.5 to each chain, so the
     * values stay finite and normal.
     */
    static float chains(int steps) {
        final FloatVector x = FloatVector.broadcast(SPECIES, 0.999f), y = FloatVector.broadcast(SPECIES, 0.001f);
        // Distinct starting values: identical chains could be merged by the compiler. Broadcast
        // here, not in a helper: a vector returned by a call that is not inlined is boxed.
        FloatVector a0 = FloatVector.broadcast(SPECIES, 0.25f), a1 = FloatVector.broadcast(SPECIES, 0.3125f);
        FloatVector a2 = FloatVector.broadcast(SPECIES, 0.375f), a3 = FloatVector.broadcast(SPECIES, 0.4375f);
        FloatVector a4 = FloatVector.broadcast(SPECIES, 0.5f), a5 = FloatVector.broadcast(SPECIES, 0.5625f);
        FloatVector a6 = FloatVector.broadcast(SPECIES, 0.625f), a7 = FloatVector.broadcast(SPECIES, 0.6875f);
        FloatVector a8 = FloatVector.broadcast(SPECIES, 0.75f), a9 = FloatVector.broadcast(SPECIES, 0.8125f);
        FloatVector a10 = FloatVector.broadcast(SPECIES, 0.875f), a11 = FloatVector.broadcast(SPECIES, 0.9375f);
        for (int s = 0; s < steps; s++) {
            a0 = x.fma(y, a0);
            a1 = x.fma(y, a1);
            a2 = x.fma(y, a2);
            a3 = x.fma(y, a3);
            a4 = x.fma(y, a4);
            a5 = x.fma(y, a5);
            a6 = x.fma(y, a6);
            a7 = x.fma(y, a7);
            a8 = x.fma(y, a8);
            a9 = x.fma(y, a9);
            a10 = x.fma(y, a10);
            a11 = x.fma(y, a11);
        }
        return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).add(a10).add(a11)
            .reduceLanes(VectorOperators.ADD);
    }
}
