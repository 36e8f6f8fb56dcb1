package io.sparkattention.gpt;

import io.sparkattention.kernel.ImplementationChoice;

import java.util.List;

/**
 * The decoder's element-wise passes that the encoder has no use for, on the Java Vector API
 * ({@code VectorDecoderMath}) or as plain loops: {@link GeluNew} over a buffer, and the
 * log-sum-exp of a row of logits (the normaliser of a log-softmax over the vocabulary). LayerNorm
 * and the exact GELU are the encoder's ({@link io.sparkattention.bert.EncoderMath}). Chosen once
 * per JVM and logged by the kernels' one mechanism ({@link ImplementationChoice}): system property
 * {@value #PROPERTY} = {@code auto} (vector when {@code jdk.incubator.vector} is visible, else
 * scalar), {@code vector} or {@code scalar}. Inner loops: the callers check the arguments.
 */
abstract class DecoderMath {

    /** System property that forces the implementation: {@code auto}, {@code vector} or {@code scalar}. */
    static final String PROPERTY = "sparkattention.decodermath";

    static final ImplementationChoice<DecoderMath> CHOICE = new ImplementationChoice<>("decoder gelu_new and "
        + "log-softmax", PROPERTY, List.of("auto", "vector", "scalar"), DecoderMath::create);

    static final DecoderMath INSTANCE = CHOICE.choose(DecoderMath::name);

    /** {@code y[i] = gelu_new(y[i])} for {@code i < n}. */
    abstract void geluNew(float[] y, int n);

    /**
     * gelu_new's backward: {@code d[i] = dy[i]·gelu_new'(pre[i])} for {@code i < n} ({@link GeluNew#derivative}'s
     * formula in double, rounded once; d may be dy). The two paths differ only in tanh's last ulps.
     */
    abstract void geluNewBackward(float[] pre, float[] dy, float[] d, int n);

    /**
     * {@code log Σ_j exp(x[off + j])} over {@code j < n} (n ≥ 1): the maximum m in float, then
     * {@code m + log Σ exp(x − m)} with every exponential and the sum in float64, so a 50,257-wide
     * row loses nothing to the accumulation. The two paths differ only in the order of the sum and
     * in exp's last ulp.
     */
    abstract double logSumExp(float[] x, int off, int n);

    /**
     * A row's log-softmax gradient scaled by {@code weight}, in place: {@code x[off + j] =
     * weight·(exp(x[off + j] − lse) − [j = target])} for {@code j < n}, each value in float64 and
     * rounded once (the cross-entropy's gradient with respect to the logits, lse the row's
     * {@link #logSumExp}). The two paths differ only in exp's last ulp.
     */
    abstract void softmaxGradient(float[] x, int off, int n, double lse, int target, double weight);

    abstract String name();

    /** Plain loops. */
    static final class Scalar extends DecoderMath {
        @Override
        void geluNew(float[] y, int n) {
            GeluNew.apply(y, 0, n);
        }

        @Override
        void geluNewBackward(float[] pre, float[] dy, float[] d, int n) {
            GeluNew.backward(pre, dy, d, 0, n);
        }

        @Override
        double logSumExp(float[] x, int off, int n) {
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                max = Math.max(max, x[off + j]);
            }
            double sum = 0;
            for (int j = 0; j < n; j++) {
                sum += Math.exp((double) x[off + j] - max);
            }
            return max + Math.log(sum);
        }

        @Override
        void softmaxGradient(float[] x, int off, int n, double lse, int target, double weight) {
            double zt = x[off + target];
            for (int j = 0; j < n; j++) {
                x[off + j] = (float) (weight * Math.exp((double) x[off + j] - lse));
            }
            x[off + target] = (float) (weight * (Math.exp(zt - lse) - 1.0));
        }

        @Override
        String name() {
            return "scalar";
        }
    }

    private static DecoderMath create(String name) {
        switch (name) {
            case "scalar":
                return new Scalar();
            case "vector":
                return ImplementationChoice.requireVector(vector(), "decoder gelu_new and log-softmax");
            default:
                DecoderMath v = vector();
                return v != null ? v : new Scalar();
        }
    }

    private static DecoderMath vector() {
        return ImplementationChoice.vectorInstance("io.sparkattention.gpt.VectorDecoderMath", DecoderMath.class);
    }
}
