package io.sparkattention.kernel;

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

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The parts of one 128×128 tile at d = dv = 64 (the kernel's default tile until BENCHMARKS.md's
 * round 7, 256×256 since, and 1024×256 for the Java tiles with AVX-512 since round 11), strip
 * after strip as the kernel runs them: the
 * score product, the softmax update (measured after fresh scores) and the P·V product, per tile implementation. K and V are
 * read from a [1024, 16·64] layout (rows 4 KiB apart) or contiguous copies, as the kernel does.
 * Each product is 2·128·128·64 = 2.1 MFLOP.
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

    private TileOps ops;
    /** The factor {@link TileOps#packQueries} left to the score product. */
    private float alpha0;
    private float[] qp, k, v, s, m, l, alpha, acc, kt, vt;

    @Setup(Level.Trial)
    public void setUp() {
        ops = TileOps.named(tileOps);
        SplittableRandom random = new SplittableRandom(1);
        float[] q = KernelBenchmarks.random(BQ * LD, random);
        k = KernelBenchmarks.random(BK * LD, random);
        v = KernelBenchmarks.random(BK * LD, random);
        qp = new float[BQ * D];
        alpha0 = ops.packQueries(BQ, D, 0.125f, q, 0, LD, qp);
        s = new float[Workspace.scoreStride(BQ) * BK];
        m = new float[BQ];
        l = new float[BQ];
        alpha = new float[BQ];
        acc = new float[BQ * D];
        kt = new float[BK * D];
        vt = new float[BK * D];
        for (int c = 0; c < BK; c++) {
            System.arraycopy(k, c * LD, kt, c * D, D);
            System.arraycopy(v, c * LD, vt, c * D, D);
        }
        scores();
    }

    /** S = Qp·Kᵀ for every strip of the 128-query block. */
    @Benchmark
    public float[] scores() {
        boolean packed = ops.packsKeyValues();
        for (int r0 = 0, w; r0 < BQ; r0 += w) {
            w = ops.strip(BQ - r0, false);
            if (packed) {
                ops.scores(w, BK, D, alpha0, qp, r0 * D, kt, 0, D, s, ops.scoreStride(w));
            } else {
                ops.scores(w, BK, D, alpha0, qp, r0 * D, k, 0, LD, s, ops.scoreStride(w));
            }
        }
        return s;
    }

    /**
     * Scores then the online-softmax update (max, exp, sums, rescale) of every strip: the
     * softmax needs fresh scores each time. Its own cost is this minus {@link #scores()}.
     */
    @Benchmark
    public float[] scoresThenSoftmax() {
        Arrays.fill(m, 0f);  // a finite running max: every update rescales, the worst case
        for (int r0 = 0, w; r0 < BQ; r0 += w) {
            w = ops.strip(BQ - r0, false);
            int lds = ops.scoreStride(w);
            ops.scores(w, BK, D, alpha0, qp, r0 * D, kt, 0, D, s, lds);
            ops.softmax().update(w, lds, BK, s, m, l, alpha, r0, acc, ops.accOffset(r0, BQ, D), ops.accQueryStride(D),
                ops.accColumnStride(w, BQ), D);
        }
        return s;
    }

    /** O += P·V for every strip of the block. */
    @Benchmark
    public float[] accumulate() {
        boolean packed = ops.packsKeyValues();
        for (int r0 = 0, w; r0 < BQ; r0 += w) {
            w = ops.strip(BQ - r0, false);
            if (packed) {
                ops.accumulate(w, BK, D, s, ops.scoreStride(w), vt, 0, D, acc, ops.accOffset(r0, BQ, D),
                    ops.accColumnStride(w, BQ));
            } else {
                ops.accumulate(w, BK, D, s, ops.scoreStride(w), v, 0, LD, acc, ops.accOffset(r0, BQ, D),
                    ops.accColumnStride(w, BQ));
            }
        }
        return acc;
    }
}
