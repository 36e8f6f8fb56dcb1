package io.sparkattention.examples.bench;

import java.util.Arrays;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

/**
 * A Spark stage's timed repetitions, one job each returning the sum of the rows' checksums,
 * after untimed repetitions until five in a row are within 1.25× of the fastest, or
 * {@link #MAX_SETTLING_RUNS} or 60 s. The Spark JVM goes on compiling its job machinery (task
 * serialization, closure cleaning, scheduling) long after the kernel has settled, so one warm-up
 * run leaves the first timed repetitions slower. The JIT compilers' time during each untimed
 * repetition is reported rather than waited for: it does not settle as fast (Spark's own code is
 * still being compiled after dozens of repetitions) and the compilers share the cores with the tasks.
 */
final class StageTrial implements Trial {

    /**
     * Most untimed repetitions of a configuration before timing it, settled or not (with
     * {@link KernelBenchmark.Settling}'s 60 s limit): 20 × 2.3 s at n = 2048, 8 rows × 16 heads.
     */
    static final int MAX_SETTLING_RUNS = 20;

    private final DoubleSupplier job;
    private final Function<double[], BenchResult> describe;
    private final CompilerClock jit = new CompilerClock();
    private final double[] warmupMs;
    private final long[] warmupJitMs;
    private final boolean settled;
    /**
     * The compilers' time when the first timed repetition started: −1 when this JVM does not
     * count it, {@code MIN_VALUE} before that repetition.
     */
    private long jitAtStart = Long.MIN_VALUE;
    private double checksum = Double.NaN;

    /**
     * Runs the untimed repetitions now.
     *
     * @param job      one repetition: a Spark job returning the output's checksum
     * @param describe the stage's line, given the timed repetitions' wall times
     */
    StageTrial(DoubleSupplier job, Function<double[], BenchResult> describe) {
        this.job = job;
        this.describe = describe;
        KernelBenchmark.Settling settling = new KernelBenchmark.Settling();
        double[] wall = new double[MAX_SETTLING_RUNS];
        long[] compiling = new long[MAX_SETTLING_RUNS];
        int runs = 0;
        while (runs < MAX_SETTLING_RUNS && !settling.settled() && !settling.givenUp()) {
            long j0 = jit.millis(), t0 = System.nanoTime();
            job.getAsDouble();
            long nanos = System.nanoTime() - t0;
            settling.add(nanos);
            wall[runs] = Math.round(nanos / 1e5) / 10.0;
            compiling[runs] = j0 < 0 ? 0 : jit.millis() - j0;
            runs++;
        }
        warmupMs = Arrays.copyOf(wall, runs);
        warmupJitMs = jit.millis() < 0 ? null : Arrays.copyOf(compiling, runs);
        settled = settling.settled();
    }

    @Override
    public void runOnce() {
        if (jitAtStart == Long.MIN_VALUE) {
            jitAtStart = jit.millis();
        }
        checksum = job.getAsDouble();
    }

    @Override
    public boolean shortRun() {
        return false;  // settled above, with Spark's own limits
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("benchmark produced a non-finite output (checksum " + checksum + ")");
        }
        return describe.apply(wallMs)
            .with("warmup_ms", warmupMs)
            .with("warmup_jit_ms", warmupJitMs)
            .with("warmup_settled", settled)
            .with("jit_ms", jitAtStart < 0 ? null : jit.millis() - jitAtStart)
            .with("checksum", checksum);
    }

    @Override
    public void close() {
    }
}
