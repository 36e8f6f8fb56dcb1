package io.sparkattention.examples.bench;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;

/**
 * The backward kernel on one {@link KernelBenchmark.Problem}: {@link FlashAttention#backward} on
 * the pool variant (its (key/value head, key chunk) units spread over the threads), from the
 * forward pass's output and log-sum-exp, which are computed once when the trial is made and not
 * timed. The output gradient dO is uniform in [−1, 1), seeded. Its work counts
 * {@link #FLOPS_PER_FORWARD} times the forward's.
 *
 * <p>Memory beyond the problem's Q, K, V: the forward's O and lse, dO, dQ, dK and dV, all
 * n×(BH·d) but lse, so 5 more such arrays (80 MiB for one 65,536-token head of d = 64), and the
 * kernel's partial dQ of its key chunks ({@link FlashAttention#backwardPartialFloats}).
 */
final class BackwardTrial implements Trial {

    /**
     * Work of the backward pass over the forward's: five products of the forward's size (QKᵀ
     * recomputed, dV, dP, dQ, dK) against its two (FlashAttention-2's count).
     */
    static final double FLOPS_PER_FORWARD = 2.5;

    /** Seed of the output gradient dO (the problem's own seeds drew Q, K, V). */
    static final long GRADIENT_SEED = 7;

    private final FlashAttention kernel;
    private final ForkJoinPool pool;
    private final int threads;
    private final AttentionShape shape;
    private final KernelBenchmark.Problem problem;
    private final float[] out, lse, dOut, dq, dk, dv;
    private final double flops;

    BackwardTrial(FlashAttention kernel, int threads, KernelBenchmark.Problem problem) {
        this.kernel = kernel;
        this.threads = threads;
        this.problem = problem;
        this.shape = problem.shape;
        this.pool = new ForkJoinPool(threads);
        out = new float[shape.outputSize()];
        lse = new float[shape.numHeads() * shape.queryLength()];
        dOut = UniformInputs.uniform(shape.outputSize(), new SplittableRandom(GRADIENT_SEED));
        dq = new float[shape.querySize()];
        dk = new float[shape.keySize()];
        dv = new float[shape.valueSize()];
        kernel.forward(shape, problem.q, problem.k, problem.v, RowMask.NONE, out, lse, pool);
        flops = FLOPS_PER_FORWARD * BenchResult.flops(shape.queryLength(), shape.headDim(), shape.numHeads(),
            kernel.spec().causal());
    }

    @Override
    public void runOnce() {
        kernel.backward(shape, problem.q, problem.k, problem.v, RowMask.NONE, out, lse, dOut, dq, dk, dv, null, pool);
    }

    @Override
    public boolean shortRun() {
        return flops <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        UniformInputs.requireFinite(dq, "backward benchmark (dQ)");
        UniformInputs.requireFinite(dk, "backward benchmark (dK)");
        UniformInputs.requireFinite(dv, "backward benchmark (dV)");
        int n = shape.queryLength(), d = shape.headDim(), bh = shape.numHeads();
        return new BenchResult("backward", n, d, bh, kernel.spec().causal(), threads, wallMs, flops, Blas.name())
            .withCpuTimes(cpuMs, flops)
            .with("tile_ops", kernel.ops().name())
            .with("block_q", kernel.queryBlock())
            .with("block_k", kernel.keyBlock())
            .with("input_mb", Math.round(4.0 * n * d * bh * 4 / (1 << 20)))
            .with("gradient_mb", Math.round(5.0 * n * d * bh * 4 / (1 << 20)))
            .with("partial_dq_mb", Math.round(4.0 * kernel.backwardPartialFloats(shape) / (1 << 20)));
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
