package io.sparkattention.nn;

import io.sparkattention.kernel.AdamUpdate;

import java.util.stream.IntStream;

/**
 * {@code torch.optim.Adam} (weight decay 0) and {@code torch.optim.AdamW} (weight decay > 0),
 * step t = 1, 2, ...:
 * <pre>
 *   θ ← θ·(1 − lr·λ)                                 (AdamW only)
 *   m ← β₁·m + (1 − β₁)·g        v ← β₂·v + (1 − β₂)·g²
 *   θ ← θ − (lr / (1 − β₁ᵗ)) · m / (√v / √(1 − β₂ᵗ) + ε)
 * </pre>
 * The moments are kept in float32, as {@code torch.optim} keeps them for float32 parameters (for a
 * fine-tuned encoder's 22.7 million values, 182 MB on the driver where float64 took 364 MB); each
 * value's update is computed in float64 and its two moments and θ rounded to float32 once. They
 * start at 0 on the first step. With decay groups
 * ({@link Optimizer#adamW}) the decay applies to the decayed tensors' ranges only; lr is the
 * constructor's rate times the step's schedule factor. The update is element-wise, so a large
 * vector is updated in chunks of {@link Optimizer#CHUNK} values on the common fork-join pool (each
 * chunk reads its range of the gradient), with the bits of one pass in order; each chunk's values
 * go through {@link AdamUpdate}, the element-wise loop (on the Vector API where it is visible, the
 * same bits either way).
 */
final class Adam extends Optimizer {

    private static final long serialVersionUID = 2L;

    static final double DEFAULT_BETA1 = 0.9;
    static final double DEFAULT_BETA2 = 0.999;
    static final double DEFAULT_EPS = 1e-8;
    private final double lr;
    private final double beta1;
    private final double beta2;
    private final double eps;
    private final double weightDecay;
    /** Ends of the parameter tensors (exclusive), in order; null: one group, all decayed. */
    private int[] groupEnds;
    /** Whether tensor i (ending at {@code groupEnds[i]}) is decayed. */
    private boolean[] groupDecayed;
    /** First and second moments, float32 ({@link Adam}). */
    private float[] m;
    private float[] v;
    private long t;

    Adam(double lr, double beta1, double beta2, double eps, double weightDecay) {
        this.lr = lr;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
    }

    Adam withDecayGroups(int[] ends, boolean[] decayed) {
        this.groupEnds = ends.clone();
        this.groupDecayed = decayed.clone();
        return this;
    }

    @Override
    public long iterations() {
        return t;
    }

    @Override
    void update(float[] theta, Gradient grad, double lrFactor) {
        if (m == null) {
            if (groupEnds != null && (groupEnds.length == 0 ? 0 : groupEnds[groupEnds.length - 1]) != theta.length) {
                throw new IllegalArgumentException("parameters have " + theta.length + " values, the decay groups' layout "
                    + (groupEnds.length == 0 ? 0 : groupEnds[groupEnds.length - 1]));
            }
            m = new float[theta.length];
            v = new float[theta.length];
        } else if (m.length != theta.length) {
            throw new IllegalArgumentException("parameters have " + theta.length + " values, the optimiser's state "
                + m.length);
        }
        t++;
        double rate = lr * lrFactor;
        double stepSize = rate / (1 - Math.pow(beta1, t));
        double correction2 = Math.sqrt(1 - Math.pow(beta2, t));
        AdamUpdate.Coefficients decayed = new AdamUpdate.Coefficients(beta1, beta2, eps,
            weightDecay > 0 ? 1 - rate * weightDecay : 1, stepSize, correction2);
        AdamUpdate.Coefficients undecayed = decayed.undecayed();
        int[] ends = groupEnds != null ? groupEnds : new int[] {theta.length};
        boolean[] decays = groupDecayed != null ? groupDecayed : new boolean[] {true};
        int chunks = (theta.length + CHUNK - 1) / CHUNK;
        IntStream range = IntStream.range(0, chunks);
        // Vectors under two chunks are updated on the calling thread.
        (chunks >= 2 ? range.parallel() : range).forEach(c -> {
            int from = c * CHUNK, to = Math.min(theta.length, from + CHUNK);
            double[] chunk = readChunk(grad, from, to);
            for (int g = 0, start = 0; g < ends.length && start < to; start = ends[g], g++) {
                int a = Math.max(from, start), b = Math.min(to, ends[g]);
                if (a < b) {
                    AdamUpdate.apply(theta, m, v, chunk, from, a, b, decays[g] ? decayed : undecayed);
                }
            }
        });
    }
}
