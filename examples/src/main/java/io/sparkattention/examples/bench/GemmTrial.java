package io.sparkattention.examples.bench;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.WeightGradient;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

/**
 * One kernel's product of one shape as a {@code bench --gemm} contender: {@code count} products
 * per repetition on each of T threads, on inputs drawn from the same seed for every kernel, each
 * thread writing its own output.
 */
final class GemmTrial implements Trial {

    /** Seed of the inputs: every kernel of a shape multiplies the same values. */
    private static final long SEED = 7;

    private final LinearKernel kernel;
    private final GemmBenchmark.Product product;
    private final int m, n, k, count, threads;
    private final float[] input;
    private final LinearWeight weight;
    private final float[] gradient;
    private final float[][] outputs;
    private final WeightGradient[] scratch;
    private final ForkJoinPool pool;
    private float sink;

    /** The product {@code product} of shape m×n×k on {@code kernel}, {@code count} times per thread and repetition. */
    GemmTrial(LinearKernel kernel, GemmBenchmark.Product product, int m, int n, int k, int count, int threads) {
        this.kernel = kernel;
        this.product = product;
        this.m = m;
        this.n = n;
        this.k = k;
        this.count = count;
        this.threads = threads;
        SplittableRandom random = new SplittableRandom(SEED);
        input = GemmBenchmark.uniform(random, m * k);
        float[] w = GemmBenchmark.uniform(random, n * k);
        switch (product) {
            case FORWARD:
                weight = LinearWeight.of(kernel, w, n, k, GemmBenchmark.uniform(random, n));
                gradient = null;
                break;
            case TRANSPOSED:
                weight = LinearWeight.transposeOf(kernel, w, k, n);
                gradient = null;
                break;
            default:
                weight = null;
                gradient = GemmBenchmark.uniform(random, m * n);
                break;
        }
        outputs = new float[threads][product == GemmBenchmark.Product.WEIGHT_GRADIENT ? n * k : m * n];
        scratch = new WeightGradient[threads];
        for (int t = 0; t < threads; t++) {
            scratch[t] = new WeightGradient(kernel);
        }
        pool = new ForkJoinPool(threads);
    }

    @Override
    public void runOnce() {
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[threads];
        for (int t = 0; t < threads; t++) {
            int slot = t;
            tasks[t] = pool.submit(() -> products(slot));
        }
        for (ForkJoinTask<?> task : tasks) {
            task.join();
        }
        for (float[] out : outputs) {
            sink += out[0];
        }
    }

    /** {@code count} products into thread {@code slot}'s output. */
    private void products(int slot) {
        float[] out = outputs[slot];
        for (int p = 0; p < count; p++) {
            if (weight != null) {
                weight.apply(input, m, out);
            } else {
                scratch[slot].accumulate(m, k, n, gradient, input, out, 0);
            }
        }
    }

    @Override
    public boolean shortRun() {
        return true;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        if (!Float.isFinite(sink)) {
            throw new IllegalStateException(product.label() + " " + m + "x" + n + "x" + k + " on " + kernel.name()
                + " is not finite: " + sink);
        }
        return BenchResult.projection(m, n, k, kernel.name(), count, threads, wallMs)
            .with("product", product.label());
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
