package io.sparkattention.bench.jmh;

import io.sparkattention.kernel.Blas;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The BLAS in use ({@link Blas#get()}: native OpenBLAS through JNI here) on square products and on
 * the kernel's tile shape, one thread: the sgemm rate BENCHMARKS.md quotes. GFLOP/s = 2·m·n·k / time.
 * Run with {@code -t 2} for two threads calling it at once (OPENBLAS_NUM_THREADS=1 each).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector"})
public class SgemmBenchmarks {

    /** m×n×k. */
    @Param({"128x128x64", "256x256x64", "1024x1024x1024", "2048x2048x2048"})
    String shape;

    private int m, n, k;
    private float[] a, b, c;

    @Setup(Level.Trial)
    public void setUp() {
        String[] mnk = shape.split("x");
        m = Integer.parseInt(mnk[0]);
        n = Integer.parseInt(mnk[1]);
        k = Integer.parseInt(mnk[2]);
        SplittableRandom random = new SplittableRandom(3);
        a = KernelBenchmarks.random(m * k, random);
        b = KernelBenchmarks.random(k * n, random);
        c = new float[m * n];
    }

    @Benchmark
    public float[] sgemm() {
        Blas.get().sgemm("N", "N", m, n, k, 1f, a, 0, m, b, 0, k, 0f, c, 0, m);
        return c;
    }
}
