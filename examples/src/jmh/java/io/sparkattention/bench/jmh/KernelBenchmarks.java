package io.sparkattention.bench.jmh;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.TileOps;
import io.sparkattention.kernel.Workspace;

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
 * The whole kernel on one thread: 16 heads of 64 over n tokens ({@code [n, 16·64]} layout, as
 * {@code bench} and ONNX Runtime use), per tile implementation. GFLOP/s = 4·n²·64·16 / time
 * (causal: 2·n·(n+1)·64·16).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector"})
public class KernelBenchmarks {

    @Param({"256", "1024", "4096"})
    int n;

    @Param({"false", "true"})
    boolean causal;

    /** {@link TileOps#named} names. */
    @Param({"vector", "blas"})
    String tileOps;

    private AttentionShape shape;
    private FlashAttention kernel;
    private final Workspace ws = new Workspace();
    private float[] q, k, v, out;

    @Setup(Level.Trial)
    public void setUp() {
        shape = AttentionShape.self(n, 16, 64);
        kernel = new FlashAttention(AttentionSpec.defaults().withCausal(causal), TileOps.named(tileOps));
        SplittableRandom random = new SplittableRandom(n);
        q = random(shape.querySize(), random);
        k = random(shape.keySize(), random);
        v = random(shape.valueSize(), random);
        out = new float[shape.outputSize()];
    }

    @Benchmark
    public float[] forward() {
        kernel.forward(shape, q, k, v, RowMask.NONE, out, null, ws);
        return out;
    }

    static float[] random(int size, SplittableRandom random) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) {
            x[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return x;
    }
}
