package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.Optimizer;

import java.util.stream.IntStream;

/**
 * A step's weighted mean gradient Σ gradient / Σ weight, optionally clipped by its global norm
 * ({@code clip_grad_norm_}), read by the optimiser a range at a time from the step's
 * {@link GradientSums}: for a fine-tuned encoder the flat float64 mean (22.7 million values,
 * 182 MB) never exists on the driver. Value i is {@code sum[i] / weight}, times the clipping
 * coefficient when the norm exceeds the bound: the bits of dividing a flat copy in place and
 * clipping it with {@link GradientClipping#clipByGlobalNorm}, whose chunks of
 * {@link GradientClipping#NORM_CHUNK} squares are summed here on the common fork-join pool (a
 * fine-tuned MiniLM's 22.6 million squares took 25 ms as one chain on one core).
 */
final class MeanGradient implements Optimizer.Gradient {

    /** A thread's chunk of the gradient while the norm is taken. */
    private static final ThreadLocal<double[]> CHUNK =
        ThreadLocal.withInitial(() -> new double[GradientClipping.NORM_CHUNK]);

    private final GradientSums sums;
    private final double weight;
    private double coefficient = 1;

    /** The mean of {@code sums} (whole sums, not a slice) over Σ weight {@code weight}. */
    MeanGradient(GradientSums sums, double weight) {
        this.sums = sums;
        this.weight = weight;
    }

    /** The gradient's length, the network's parameter count. */
    int length() {
        return sums.layout().parameterCount();
    }

    /**
     * Scales every later read by {@code maxNorm / (norm + 1e-6)} when that is below 1.
     *
     * @return the mean gradient's L2 norm before clipping
     */
    double clipByGlobalNorm(double maxNorm) {
        int n = length();
        double[] partial = new double[(n + GradientClipping.NORM_CHUNK - 1) / GradientClipping.NORM_CHUNK];
        IntStream.range(0, partial.length).parallel().forEach(c -> {
            int from = c * GradientClipping.NORM_CHUNK, to = Math.min(n, from + GradientClipping.NORM_CHUNK);
            double[] chunk = CHUNK.get();
            read(from, to, chunk);
            double sq = 0;
            for (int k = 0; k < to - from; k++) {
                sq += chunk[k] * chunk[k];
            }
            partial[c] = sq;
        });
        double sq = 0;
        for (double p : partial) {
            sq += p;
        }
        double total = Math.sqrt(sq);
        coefficient = GradientClipping.coefficient(total, maxNorm);
        return total;
    }

    @Override
    public void read(int from, int to, double[] into) {
        sums.toFlat(from, to, into);
        for (int k = 0; k < to - from; k++) {
            double g = into[k] / weight;
            into[k] = coefficient < 1 ? g * coefficient : g;
        }
    }
}
