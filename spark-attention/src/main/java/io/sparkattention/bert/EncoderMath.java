package io.sparkattention.bert;

import io.sparkattention.kernel.ImplementationChoice;

import java.util.List;

/**
 * The encoder's element-wise passes, GELU and (residual +) LayerNorm with their backwards, on the Java Vector API
 * ({@code VectorEncoderMath}) or as plain loops ({@link Gelu}, {@link LayerNorm}), both by
 * {@link LayerNorm}'s accumulation rule. Chosen once per JVM and logged by the kernels' one
 * mechanism ({@link ImplementationChoice}): system property {@value #PROPERTY} = {@code auto}
 * (default: vector when {@code jdk.incubator.vector} is visible, else scalar), {@code vector} or
 * {@code scalar}; so every executor of a cluster of like machines computes the same bits.
 * Inner loops: the callers check the arguments.
 */
public abstract class EncoderMath {

    /** System property that forces the implementation: {@code auto}, {@code vector} or {@code scalar}. */
    static final String PROPERTY = "sparkattention.encodermath";

    static final ImplementationChoice<EncoderMath> CHOICE = new ImplementationChoice<>("encoder GELU and LayerNorm",
        PROPERTY, List.of("auto", "vector", "scalar"), EncoderMath::create);

    static final EncoderMath INSTANCE = CHOICE.choose(EncoderMath::name);

    /** The implementation this JVM uses (the decoder shares the encoder's GELU and LayerNorm). */
    public static EncoderMath get() {
        return INSTANCE;
    }

    /** {@code y[i] = gelu(y[i])} for {@code i < n}. */
    public abstract void gelu(float[] y, int n);

    /** GELU's backward: {@code d[i] = dy[i]·gelu'(pre[i])} for {@code i < n} (d may be dy). */
    abstract void geluBackward(float[] pre, float[] dy, float[] d, int n);

    /** {@code x[r] = LN(x[r] + residual[r])} for rows r &lt; rows of width E; residual may be null. */
    public final void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta,
                                float eps) {
        layerNorm(x, residual, rows, E, gamma, beta, eps, null, null);
    }

    /**
     * {@link #layerNorm(float[], float[], int, int, float[], float[], float)}, also keeping what
     * {@link #layerNormBackward} needs when {@code xhat} is not null: x̂ = (x − mean)·rstd rounded to
     * float32 (rows×E) and rstd = 1/√(var + ε) (rows), by the same statistics as the output.
     */
    abstract void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps,
                            float[] xhat, float[] rstd);

    /**
     * LayerNorm's backward ({@link LayerNorm}'s formulas, every sum in float64): dx (rows×E, may be
     * dy itself) written from dy, and dγ, dβ summed over the rows in float64 in {@code sums}
     * (at least 2E, scratch) and added once, rounded, into {@code grad} at gammaOff and betaOff
     * (skipped when grad is null). The two paths differ only in the order of a row's two sums.
     */
    abstract void layerNormBackward(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma,
                                    float[] dx, float[] grad, int gammaOff, int betaOff, double[] sums);

    /**
     * {@link #layerNorm(float[], float[], int, int, float[], float[], float, float[], float[])} for
     * another package's training forward (the decoder's): {@code x[r] = LN(x[r] + residual[r])},
     * x̂ (rows×E) and rstd (rows) kept for {@link #layerNormGradient}.
     */
    public final void layerNormKeeping(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta,
                                       float eps, float[] xhat, float[] rstd) {
        layerNorm(x, residual, rows, E, gamma, beta, eps, xhat, rstd);
    }

    /** {@link #layerNormBackward} for another package's training backward (the decoder's). */
    public final void layerNormGradient(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma,
                                        float[] dx, float[] grad, int gammaOff, int betaOff, double[] sums) {
        layerNormBackward(dy, xhat, rstd, rows, E, gamma, dx, grad, gammaOff, betaOff, sums);
    }

    /** {@link #geluBackward} (the exact GELU's) for another package's training backward (the decoder's). */
    public final void geluGradient(float[] pre, float[] dy, float[] d, int n) {
        geluBackward(pre, dy, d, n);
    }

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
        public void gelu(float[] y, int n) {
            Gelu.apply(y, 0, n);
        }

        @Override
        void geluBackward(float[] pre, float[] dy, float[] d, int n) {
            Gelu.backward(pre, dy, d, n);
        }

        @Override
        void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps,
                       float[] xhat, float[] rstd) {
            LayerNorm.forward(x, residual, rows, E, gamma, beta, eps, xhat, rstd);
        }

        @Override
        void layerNormBackward(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma, float[] dx,
                               float[] grad, int gammaOff, int betaOff, double[] sums) {
            LayerNorm.backward(dy, xhat, rstd, rows, E, gamma, dx, grad, gammaOff, betaOff, sums);
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
