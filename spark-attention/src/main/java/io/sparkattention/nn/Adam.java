package io.sparkattention.nn;

/**
 * {@code torch.optim.Adam} (weight decay 0) and {@code torch.optim.AdamW} (weight decay > 0),
 * step t = 1, 2, ...:
 * <pre>
 *   θ ← θ·(1 − lr·λ)                                 (AdamW only)
 *   m ← β₁·m + (1 − β₁)·g        v ← β₂·v + (1 − β₂)·g²
 *   θ ← θ − (lr / (1 − β₁ᵗ)) · m / (√v / √(1 − β₂ᵗ) + ε)
 * </pre>
 * Moments are float64 and start at 0 on the first step.
 */
final class Adam extends Optimizer {

    private static final long serialVersionUID = 1L;

    static final double DEFAULT_BETA1 = 0.9;
    static final double DEFAULT_BETA2 = 0.999;
    static final double DEFAULT_EPS = 1e-8;

    private final double lr;
    private final double beta1;
    private final double beta2;
    private final double eps;
    private final double weightDecay;
    private double[] m;
    private double[] v;
    private long t;

    Adam(double lr, double beta1, double beta2, double eps, double weightDecay) {
        this.lr = lr;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
    }

    @Override
    public long iterations() {
        return t;
    }

    @Override
    void update(float[] theta, double[] grad) {
        if (m == null) {
            m = new double[theta.length];
            v = new double[theta.length];
        } else if (m.length != theta.length) {
            throw new IllegalArgumentException("parameters have " + theta.length + " values, the optimiser's state "
                + m.length);
        }
        t++;
        double stepSize = lr / (1 - Math.pow(beta1, t));
        double correction2 = Math.sqrt(1 - Math.pow(beta2, t));
        double decay = 1 - lr * weightDecay;
        for (int i = 0; i < theta.length; i++) {
            double g = grad[i];
            m[i] = beta1 * m[i] + (1 - beta1) * g;
            v[i] = beta2 * v[i] + (1 - beta2) * g * g;
            double p = weightDecay > 0 ? theta[i] * decay : theta[i];
            theta[i] = (float) (p - stepSize * m[i] / (Math.sqrt(v[i]) / correction2 + eps));
        }
    }
}
