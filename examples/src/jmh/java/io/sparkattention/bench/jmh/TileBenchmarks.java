package io.sparkattention.bench.jmh;

import io.sparkattention.kernel.TileOps;
import io.sparkattention.kernel.TileParts;

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
 * The parts of one 128×128 tile at d = dv = 64, strip after strip as the kernel runs them ({@link
 * TileParts}): the score product, the softmax update (measured after fresh scores) and the P·V
 * product, per tile implementation. K and V are read from a [128, 16·64] layout (rows 4 KiB apart)
 * or contiguous copies, as the kernel does. Each product is 2·128·128·64 = 2.1 MFLOP.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector"})
public class TileBenchmarks {

    private static final int BQ = 128, BK = 128, D = 64, HEADS = 16, LD = HEADS * D;

    /** {@link TileOps#named} names. */
    @Param({"vector", "blas", "blas-scalar"})
    String tileOps;

    private TileParts tile;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        float[] q = KernelBenchmarks.random(BQ * LD, random);
        float[] k = KernelBenchmarks.random(BK * LD, random);
        float[] v = KernelBenchmarks.random(BK * LD, random);
        tile = new TileParts(TileOps.named(tileOps), BQ, BK, D, q, k, v, LD, 0.125f);
    }

    /** S = Qp·Kᵀ for every strip of the 128-query block. */
    @Benchmark
    public float[] scores() {
        return tile.scores();
    }

    /**
     * Scores then the online-softmax update (max, exp, sums, rescale) of every strip: the
     * softmax needs fresh scores each time. Its own cost is this minus {@link #scores()}.
     */
    @Benchmark
    public float[] scoresThenSoftmax() {
        return tile.scoresThenSoftmax();
    }

    /** O += P·V for every strip of the block. */
    @Benchmark
    public float[] accumulate() {
        return tile.accumulate();
    }
}
