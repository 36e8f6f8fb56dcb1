package io.sparkattention.examples.bench;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The projections' kernels side by side ({@code bench --gemm}): {@code y = x·Wᵀ + b} on one
 * thread, each kernel with its weight prepared once ({@link LinearWeight}), on the same random
 * inputs, timed round-robin by {@link Interleaved} so their ratio holds on a shared machine: the
 * BLAS first, then the Vector API kernel when the JVM sees the module. Each line after the first
 * of a shape carries {@code vs_blas}: its GFLOP/s over the BLAS's in the same rounds.
 */
public final class GemmBenchmark {

    /** The layer's projection shapes, m×n×k: 128 and 2048 tokens at E = 768, 100 tokens at E = 64. */
    public static final String SHAPES = "128x768x768,100x64x64,2048x768x768";

    /** Work per timed repetition, about 20 ms at 100 GFLOP/s: products are repeated up to it. */
    static final double FLOPS_PER_REPETITION = 2e9;

    private GemmBenchmark() {
    }

    /**
     * Parses {@code MxNxK[,MxNxK...]} (positive sizes).
     *
     * @throws IllegalArgumentException naming the shape that does not parse
     */
    public static List<int[]> shapes(String text) {
        List<int[]> shapes = new ArrayList<>();
        for (String item : text.split(",")) {
            String[] parts = item.trim().split("x");
            int[] shape = new int[3];
            try {
                if (parts.length != 3) {
                    throw new NumberFormatException();
                }
                for (int i = 0; i < 3; i++) {
                    shape[i] = Integer.parseInt(parts[i].trim());
                    if (shape[i] < 1) {
                        throw new NumberFormatException();
                    }
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("shape \"" + item.trim() + "\": expected MxNxK with positive sizes");
            }
            shapes.add(shape);
        }
        return shapes;
    }

    /** The BLAS, then the Vector API kernel when this JVM sees {@code jdk.incubator.vector}. */
    public static List<LinearKernel> kernels() {
        List<LinearKernel> kernels = new ArrayList<>(List.of(LinearKernel.named("blas")));
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            kernels.add(LinearKernel.named("vector"));
        }
        return kernels;
    }

    /** One JSON line per (shape, kernel), kernels in the given order. */
    public static List<BenchResult> run(List<LinearKernel> kernels, List<int[]> shapes, int repeat) {
        List<BenchResult> all = new ArrayList<>();
        for (int[] shape : shapes) {
            int m = shape[0], n = shape[1], k = shape[2];
            SplittableRandom random = new SplittableRandom(7);
            float[] x = uniform(random, m * k), w = uniform(random, n * k), b = uniform(random, n);
            int products = (int) Math.max(1, Math.round(FLOPS_PER_REPETITION / (2.0 * m * n * k)));
            List<Trial> trials = new ArrayList<>();
            for (LinearKernel kernel : kernels) {
                trials.add(trial(LinearWeight.of(kernel, w, n, k, b), x, m, products));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            for (int i = 1; i < results.size(); i++) {
                results.get(i).with("vs_blas",
                    Math.round(results.get(0).medianMs() / results.get(i).medianMs() * 1000) / 1000.0);
            }
            all.addAll(results);
        }
        return all;
    }

    private static Trial trial(LinearWeight weight, float[] x, int m, int products) {
        return new Trial() {
            private float sink;

            @Override
            public void runOnce() {
                for (int p = 0; p < products; p++) {
                    sink += weight.apply(x, m)[0];
                }
            }

            @Override
            public boolean shortRun() {
                return true;
            }

            @Override
            public BenchResult result(double[] wallMs, double[] cpuMs) {
                return BenchResult.projection(m, weight.out(), weight.in(), weight.kernel().name(), products, wallMs);
            }

            @Override
            public void close() {
            }
        };
    }

    /** Uniform values in [−1, 1), the kernel benchmark's distribution. */
    private static float[] uniform(SplittableRandom random, int size) {
        float[] v = new float[size];
        for (int i = 0; i < size; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return v;
    }
}
