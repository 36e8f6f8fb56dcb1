package io.sparkattention.nn;

import java.util.Objects;

/**
 * {@code torch.nn.utils.clip_grad_norm_} over one flat gradient (every trainable tensor's
 * gradient, as the fine-tuning loop passes them all at once), in float64:
 * <pre>
 *   total = √(Σ g²);   if maxNorm / (total + 1e-6) &lt; 1:  g ← g · maxNorm / (total + 1e-6)
 * </pre>
 * Σ g² is summed {@link #NORM_CHUNK} values at a time in flat order, and the chunks' sums added
 * in chunk order: the order a caller holding the gradient in pieces keeps while it sums the chunks
 * on several threads (the training engine's mean gradient), so both give the same bits.
 */
public final class GradientClipping {

    /** Added to the norm before dividing, as PyTorch does. */
    public static final double NORM_EPS = 1e-6;

    /** Values whose squares are summed in flat order into one partial sum; the partials are added in order. */
    public static final int NORM_CHUNK = 1 << 16;

    private GradientClipping() {
    }

    /**
     * Scales {@code grad} in place when its L2 norm exceeds {@code maxNorm}.
     *
     * @param maxNorm &gt; 0 and finite
     * @return the total norm before clipping (PyTorch's return value)
     * @throws IllegalArgumentException when maxNorm is not finite and &gt; 0
     */
    public static double clipByGlobalNorm(double[] grad, double maxNorm) {
        Objects.requireNonNull(grad, "gradient");
        double sq = 0;
        for (int from = 0; from < grad.length; from += NORM_CHUNK) {
            double partial = 0;
            for (int i = from, to = Math.min(grad.length, from + NORM_CHUNK); i < to; i++) {
                partial += grad[i] * grad[i];
            }
            sq += partial;
        }
        double total = Math.sqrt(sq);
        double coefficient = coefficient(total, maxNorm);
        if (coefficient < 1) {
            for (int i = 0; i < grad.length; i++) {
                grad[i] *= coefficient;
            }
        }
        return total;
    }

    /**
     * The factor a gradient of L2 norm {@code total} is scaled by, {@code maxNorm / (total + 1e-6)},
     * or 1 when that is not below 1 (the gradient is left as it is): for a caller that sums the
     * squares itself, in the same order ({@link #NORM_CHUNK}), over a gradient it holds in pieces.
     *
     * @param maxNorm &gt; 0 and finite
     * @throws IllegalArgumentException when maxNorm is not finite and &gt; 0
     */
    public static double coefficient(double total, double maxNorm) {
        if (!(maxNorm > 0) || Double.isInfinite(maxNorm)) {
            throw new IllegalArgumentException("maxGradNorm must be finite and > 0, got " + maxNorm);
        }
        double coefficient = maxNorm / (total + NORM_EPS);
        return coefficient < 1 ? coefficient : 1;
    }
}
