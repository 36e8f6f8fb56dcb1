package io.sparkattention.bert;

import io.sparkattention.kernel.ImplementationChoice;

import java.util.List;

/**
 * The encoder's element-wise passes, GELU and (residual +) LayerNorm, on the Java Vector API
 * ({@code VectorEncoderMath}) or as plain loops ({@link Gelu}, {@link LayerNorm}), both by
 * {@link LayerNorm}'s accumulation rule. Chosen once per JVM and logged by the kernels' one
 * mechanism ({@link ImplementationChoice}): system property {@value #PROPERTY} = {@code auto}
 * (default: vector when {@code jdk.incubator.vector} is visible, else scalar), {@code vector} or
 * {@code scalar}; so every executor of a cluster of like machines computes the same bits.
 * Inner loops: the callers check the arguments.
 */
abstract class EncoderMath {

    /** System property that forces the implementation: {@code auto}, {@code vector} or {@code scalar}. */
    static final String PROPERTY = "sparkattention.encodermath";

    static final ImplementationChoice<EncoderMath> CHOICE = new ImplementationChoice<>("encoder GELU and LayerNorm",
        PROPERTY, List.of("auto", "vector", "scalar"), EncoderMath::create);

    static final EncoderMath INSTANCE = CHOICE.choose(EncoderMath::name);

    /** {@code y[i] = gelu(y[i])} for {@code i < n}. */
    abstract void gelu(float[] y, int n);

    /** GELU's backward: {@code d[i] = dy[i]·gelu'(pre[i])} for {@code i < n} (d may be dy). */
    abstract void geluBackward(float[] pre, float[] dy, float[] d, int n);

    /** {@code x[r] = LN(x[r] + residual[r])} for rows r &lt; rows of width E; residual may be null. */
    abstract void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps);

    /**
     * {@code sums[i] += part[i]} (widened to double, exact) then {@code part[i] = 0} for i in
     * {@code [from, to)}: a row's float32 gradient moved into the step's float64 sums. The same
     * bits on both paths (one exact widening and one double add per element).
     */
    abstract void addAndClear(float[] part, double[] sums, int from, int to);

    abstract String name();

    /** Plain loops ({@link Gelu}, {@link LayerNorm}). */
    static final class Scalar extends EncoderMath {
        @Override
        void gelu(float[] y, int n) {
            Gelu.apply(y, 0, n);
        }

        @Override
        void geluBackward(float[] pre, float[] dy, float[] d, int n) {
            Gelu.backward(pre, dy, d, n);
        }

        @Override
        void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps) {
            LayerNorm.apply(x, residual, rows, E, gamma, beta, eps);
        }

        @Override
        void addAndClear(float[] part, double[] sums, int from, int to) {
            for (int i = from; i < to; i++) {
                sums[i] += part[i];
                part[i] = 0f;
            }
        }

        @Override
        String name() {
            return "scalar";
        }
    }

    private static EncoderMath create(String name) {
        switch (name) {
            case "scalar":
                return new Scalar();
            case "vector":
                return ImplementationChoice.requireVector(vector(), "encoder GELU and LayerNorm");
            default:
                EncoderMath v = vector();
                return v != null ? v : new Scalar();
        }
    }

    private static EncoderMath vector() {
        return ImplementationChoice.vectorInstance("io.sparkattention.bert.VectorEncoderMath", EncoderMath.class);
    }
}
