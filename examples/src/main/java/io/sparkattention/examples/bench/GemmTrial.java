package io.sparkattention.examples.bench;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.WeightGradient;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

/**
 * One kernel's product of one shape as a {@code bench --gemm} contender: {@code count} products
 * per repetition on each of T threads, on inputs drawn from the same seed for every kernel, each
 * thread writing its own output. Besides the wall time each line carries its threads' own CPU time
 * ({@code median_thread_cpu_ms}: a run's mean over its T threads; {@code gflops_thread_cpu}: the
 * run's flops over it, comparable with {@code gflops}): on a host whose other jobs take the
 * cores by turns the wall time counts their turns too, while a thread's CPU time counts only its
 * own (it still shares caches, memory and, with SMT, a core's units with them).
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
    private final long[] threadCpuNanos;
    /** The threads' CPU time of every run, in ms, untimed settling runs first. */
    private final List<Double> runCpuMs = new ArrayList<>();
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
        threadCpuNanos = new long[threads];
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
        runCpuMs.add(Arrays.stream(threadCpuNanos).sum() / 1e6 / threads);
    }

    /** {@code count} products into thread {@code slot}'s output. */
    private void products(int slot) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long start = mx.getCurrentThreadCpuTime();
        float[] out = outputs[slot];
        for (int p = 0; p < count; p++) {
            if (weight != null) {
                weight.apply(input, m, out);
            } else {
                scratch[slot].accumulate(m, k, n, gradient, input, out, 0);
            }
        }
        threadCpuNanos[slot] = mx.getCurrentThreadCpuTime() - start;
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
        // The timed runs are the last wallMs.length ones.
        double[] cpu = runCpuMs.subList(runCpuMs.size() - wallMs.length, runCpuMs.size()).stream()
            .mapToDouble(Double::doubleValue).sorted().toArray();
        double medianCpuMs = BenchResult.median(cpu);
        double gflops = 2.0 * m * n * k * count * threads / (medianCpuMs * 1e6);
        return BenchResult.projection(m, n, k, kernel.name(), count, threads, wallMs)
            .with("product", product.label())
            .with("median_thread_cpu_ms", Math.round(medianCpuMs * 1000) / 1000.0)
            .with("gflops_thread_cpu", Math.round(gflops * 1000) / 1000.0);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
