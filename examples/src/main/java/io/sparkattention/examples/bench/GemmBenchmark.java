package io.sparkattention.examples.bench;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.WeightGradient;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The projections' kernels side by side ({@code bench --gemm}): one product per line, each kernel
 * on its weight prepared once, on the same random inputs, timed round-robin by {@link Interleaved}
 * so their ratio holds on a shared machine: the BLAS first, then the Vector API kernel when the
 * JVM sees the module, then the FMA loop ({@link FmaPeak}) when asked. On T threads each thread
 * computes its own products on the shared inputs, as the encoder's threads each run their own
 * texts through the same weights. Each kernel's line after the first of a shape carries
 * {@code vs_blas}: its GFLOP/s over the BLAS's in the same rounds; with the loop, every kernel's
 * line carries {@code fraction_of_fma}.
 */
public final class GemmBenchmark {

    /** The layer's projection shapes, m×n×k: 128 and 2048 tokens at E = 768, 100 tokens at E = 64. */
    public static final String SHAPES = "128x768x768,100x64x64,2048x768x768";

    /** Work per timed repetition and thread, about 20 ms at 100 GFLOP/s: products are repeated up to it. */
    static final double FLOPS_PER_REPETITION = 2e9;

    /**
     * The three products of a projection {@code y = x·Wᵀ}, each m×n×k with 2·m·n·k flops: its
     * forward, its input gradient on the prepared transpose, its weight gradient.
     */
    public enum Product {
        /** {@code y[m×n] = x[m×k]·W[n×k]ᵀ} ({@link LinearWeight#of}). */
        FORWARD("forward"),
        /** {@code y[m×n] = dy[m×k]·W[k×n]} on the prepared transpose ({@link LinearWeight#transposeOf}). */
        TRANSPOSED("transposed"),
        /** {@code dW[n×k] += dy[m×n]ᵀ·x[m×k]} ({@link WeightGradient}): m is the depth of its sum. */
        WEIGHT_GRADIENT("weight-gradient");

        private final String label;

        Product(String label) {
            this.label = label;
        }

        /** The name {@code --gemm-products} takes and the lines print. */
        public String label() {
            return label;
        }

        /**
         * The product named {@code name}.
         *
         * @throws IllegalArgumentException naming the unknown product and the known ones
         */
        public static Product named(String name) {
            for (Product p : values()) {
                if (p.label.equals(name.trim().toLowerCase(Locale.ROOT))) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown product \"" + name.trim()
                + "\", expected forward, transposed or weight-gradient");
        }
    }

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

    /**
     * One JSON line per (shape, product, kernel), kernels in the given order, then the FMA loop's
     * line when {@code fma}.
     */
    public static List<BenchResult> run(List<LinearKernel> kernels, List<int[]> shapes, List<Product> products,
                                        int threads, boolean fma, int repeat) {
        List<BenchResult> all = new ArrayList<>();
        for (int[] shape : shapes) {
            for (Product product : products) {
                all.addAll(run(kernels, shape, product, threads, fma, repeat));
            }
        }
        return all;
    }

    private static List<BenchResult> run(List<LinearKernel> kernels, int[] shape, Product product, int threads,
                                         boolean fma, int repeat) {
        int m = shape[0], n = shape[1], k = shape[2];
        int count = (int) Math.max(1, Math.round(FLOPS_PER_REPETITION / (2.0 * m * n * k)));
        List<Trial> trials = new ArrayList<>();
        try {
            for (LinearKernel kernel : kernels) {
                trials.add(new GemmTrial(kernel, product, m, n, k, count, threads));
            }
            if (fma) {
                trials.add(FmaPeak.beside(2.0 * m * n * k * count * threads, threads));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            List<BenchResult> lines = results.subList(0, kernels.size());
            for (int i = 1; i < lines.size(); i++) {
                lines.get(i).with("vs_blas", Math.round(lines.get(0).medianMs() / lines.get(i).medianMs() * 1000) / 1000.0);
            }
            if (fma) {
                FmaPeak.addFractions(lines, results.get(kernels.size()));
            }
            return results;
        } finally {
            trials.forEach(Trial::close);
        }
    }

    /** Uniform values in [−1, 1), the kernel benchmark's distribution. */
    static float[] uniform(SplittableRandom random, int size) {
        float[] v = new float[size];
        for (int i = 0; i < size; i++) {
            v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return v;
    }
}
