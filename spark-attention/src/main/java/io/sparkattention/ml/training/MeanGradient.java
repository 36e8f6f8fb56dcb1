package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.Optimizer;

/**
 * A step's weighted mean gradient Σ gradient / Σ weight, optionally clipped by its global norm
 * ({@code clip_grad_norm_}), read by the optimiser a range at a time from the step's
 * {@link GradientSums}: for a fine-tuned encoder the flat float64 mean (22.7 million values,
 * 182 MB) never exists on the driver. Value i is {@code sum[i] / weight}, times the clipping
 * coefficient when the norm exceeds the bound, and the norm sums the squares in flat order: the
 * bits of dividing a flat copy in place and clipping it with {@link GradientClipping#clipByGlobalNorm}.
 */
final class MeanGradient implements Optimizer.Gradient {

    /** Values summed at a time when the norm is taken. */
    private static final int NORM_CHUNK = 1 << 16;

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
        double[] chunk = new double[Math.min(NORM_CHUNK, length())];
        double sq = 0;
        for (int from = 0; from < length(); from += chunk.length) {
            int to = Math.min(length(), from + chunk.length);
            read(from, to, chunk);
            for (int k = 0; k < to - from; k++) {
                sq += chunk[k] * chunk[k];
            }
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
