package io.sparkattention.nn;

import java.io.Serializable;
import java.util.List;
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

    /**
     * AdamW with Hugging Face's two parameter groups ({@code torch.optim.AdamW} over the decayed
     * and the undecayed tensors, betas (0.9, 0.999), eps 1e-8): decoupled weight decay
     * {@code θ ← θ·(1 − lr·weightDecay)} on the tensors of {@code layout} whose
     * {@link ParameterTensor#decayed()} is true, none on biases and LayerNorm parameters. The
     * tensors must tile the parameter vector from 0 without gaps, in offset order (a network's
     * {@code parameters()}).
     *
     * @throws IllegalArgumentException naming the hyper-parameter out of range, or the tensor
     *                                  that leaves a gap or overlaps its predecessor
     */
    public static Optimizer adamW(double lr, double weightDecay, List<ParameterTensor> layout) {
        Objects.requireNonNull(layout, "layout");
        Adam adam = (Adam) adam(lr, weightDecay);
        int expected = 0;
        int[] ends = new int[layout.size()];
        boolean[] decayed = new boolean[layout.size()];
        for (int i = 0; i < layout.size(); i++) {
            ParameterTensor t = Objects.requireNonNull(layout.get(i), "layout tensor");
            if (t.offset() != expected) {
                throw new IllegalArgumentException("parameter tensor " + t + " starts at " + t.offset()
                    + ", expected " + expected + " (the layout must tile the vector in order)");
            }
            expected = t.offset() + t.size();
            ends[i] = expected;
            decayed[i] = t.decayed();
        }
        return adam.withDecayGroups(ends, decayed);
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
        step(theta, grad, 1.0);
    }

    /**
     * {@link #step(float[], double[])} at {@code lrFactor} times the learning rate given at
     * construction, for this step only: a schedule's factor ({@link LearningRateSchedule}), as
     * {@code torch.optim.lr_scheduler.LambdaLR} sets every group's lr. The decoupled decay uses
     * the scaled rate too. With factor 0 Adam still advances its moments and step count, as
     * PyTorch does at lr 0.
     *
     * @throws IllegalArgumentException when the factor is negative or not finite, or the lengths
     *                                  differ
     */
    public final void step(float[] theta, double[] grad, double lrFactor) {
        Objects.requireNonNull(grad, "gradient");
        step(theta, grad.length, (from, to, into) -> System.arraycopy(grad, from, into, 0, to - from), lrFactor);
    }

    /**
     * {@link #step(float[], double[], double)} from a gradient of {@code length} values read range
     * by range ({@link Gradient}), so no flat float64 copy of it need exist: the bits of the
     * array form given the same values.
     *
     * @throws IllegalArgumentException when the factor is negative or not finite, or the lengths
     *                                  differ
     */
    public final void step(float[] theta, int length, Gradient grad, double lrFactor) {
        if (!(lrFactor >= 0) || Double.isInfinite(lrFactor)) {
            throw new IllegalArgumentException("learning-rate factor must be finite and >= 0, got " + lrFactor);
        }
        Objects.requireNonNull(theta, "parameters");
        Objects.requireNonNull(grad, "gradient");
        if (theta.length != length) {
            throw new IllegalArgumentException("gradient has " + length + " values, parameters " + theta.length);
        }
        update(theta, grad, lrFactor);
    }

    /**
     * A flat gradient read range by range: for a fine-tuned encoder the mean gradient's 22.7
     * million float64 values (182 MB) need not exist at once; the optimiser reads them
     * {@link #CHUNK} at a time.
     */
    @FunctionalInterface
    public interface Gradient {
        /** Writes values [from, to) of the gradient into {@code into[0, to − from)}. */
        void read(int from, int to, double[] into);
    }

    /**
     * Values an update reads and applies at once: large enough that a chunk's work (about 0.1 ms)
     * dwarfs handing it to a thread, small enough that a fine-tuned encoder's 22.7 million values
     * spread over every core and a chunk's gradient (512 KiB) stays in a core's cache.
     */
    static final int CHUNK = 1 << 16;

    /** This thread's buffer for a chunk of the gradient. */
    private static final ThreadLocal<double[]> CHUNK_BUFFER = ThreadLocal.withInitial(() -> new double[CHUNK]);

    /** Reads the gradient's values [from, to), at most {@link #CHUNK}, into this thread's chunk buffer. */
    static double[] readChunk(Gradient grad, int from, int to) {
        double[] into = CHUNK_BUFFER.get();
        grad.read(from, to, into);
        return into;
    }

    /** Steps taken so far. */
    public abstract long iterations();

    abstract void update(float[] theta, Gradient grad, double lrFactor);

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
