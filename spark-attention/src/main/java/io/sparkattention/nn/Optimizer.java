package io.sparkattention.nn;

import java.io.Serializable;
import java.util.Objects;

/**
 * An update rule on a flat parameter vector, with PyTorch's formulas ({@code torch.optim.Adam},
 * {@code torch.optim.AdamW}, and plain gradient descent {@code θ ← θ − lr·g}). Stateful (Adam's
 * moments and step count): one instance per training run, stepped on the driver.
 */
public abstract class Optimizer implements Serializable {

    private static final long serialVersionUID = 1L;

    Optimizer() {
    }

    /**
     * Adam with bias-corrected moments and {@code eps} added outside the square root; with
     * {@code weightDecay > 0} it is AdamW: {@code θ ← θ·(1 − lr·weightDecay)} before the Adam
     * update (decoupled weight decay, as {@code torch.optim.AdamW}).
     *
     * @throws IllegalArgumentException naming the hyper-parameter that is out of range
     */
    public static Optimizer adam(double lr, double beta1, double beta2, double eps, double weightDecay) {
        checkRate(lr);
        checkBeta("beta1", beta1);
        checkBeta("beta2", beta2);
        if (!(eps >= 0) || Double.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be finite and >= 0, got " + eps);
        }
        if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
            throw new IllegalArgumentException("weightDecay must be finite and >= 0, got " + weightDecay);
        }
        return new Adam(lr, beta1, beta2, eps, weightDecay);
    }

    /** Adam with PyTorch's defaults: betas (0.9, 0.999), eps 1e-8, and {@code weightDecay} (AdamW when > 0). */
    public static Optimizer adam(double lr, double weightDecay) {
        return adam(lr, Adam.DEFAULT_BETA1, Adam.DEFAULT_BETA2, Adam.DEFAULT_EPS, weightDecay);
    }

    /** Plain gradient descent, {@code θ ← θ − lr·g} ({@code torch.optim.SGD} without momentum). */
    public static Optimizer gradientDescent(double lr) {
        checkRate(lr);
        return new GradientDescent(lr);
    }

    /**
     * One update of {@code theta} in place from the step's gradient (the mean over the step's
     * rows). The arithmetic is float64; the result is rounded to float32 once per value.
     *
     * @throws IllegalArgumentException when the lengths differ (or, for Adam, differ from the
     *     first step's)
     */
    public final void step(float[] theta, double[] grad) {
        Objects.requireNonNull(theta, "parameters");
        Objects.requireNonNull(grad, "gradient");
        if (theta.length != grad.length) {
            throw new IllegalArgumentException("gradient has " + grad.length + " values, parameters " + theta.length);
        }
        update(theta, grad);
    }

    /** Steps taken so far. */
    public abstract long iterations();

    abstract void update(float[] theta, double[] grad);

    private static void checkRate(double lr) {
        if (!(lr > 0) || Double.isInfinite(lr)) {
            throw new IllegalArgumentException("stepSize (learning rate) must be finite and > 0, got " + lr);
        }
    }

    private static void checkBeta(String name, double beta) {
        if (!(beta >= 0 && beta < 1)) {
            throw new IllegalArgumentException(name + " must be in [0, 1), got " + beta);
        }
    }
}
