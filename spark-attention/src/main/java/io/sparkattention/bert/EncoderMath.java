package io.sparkattention.bert;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The encoder's element-wise passes, GELU and (residual +) LayerNorm, on the Java Vector API when
 * {@code jdk.incubator.vector} is visible ({@code VectorEncoderMath}) and as plain loops otherwise
 * ({@link Gelu}, {@link LayerNorm}). Chosen once per JVM by that rule alone, like the projection
 * and tile kernels, so every executor of a cluster of like machines computes the same bits.
 * Inner loops: the callers check the arguments.
 */
abstract class EncoderMath {

    private static final Logger LOG = LoggerFactory.getLogger(EncoderMath.class);

    static final EncoderMath INSTANCE = choose();

    /** {@code y[i] = gelu(y[i])} for {@code i < n}. */
    abstract void gelu(float[] y, int n);

    /** {@code x[r] = LN(x[r] + residual[r])} for rows r &lt; rows of width E; residual may be null. */
    abstract void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps);

    abstract String name();

    /** Plain loops in double ({@link Gelu}, {@link LayerNorm}). */
    static final class Scalar extends EncoderMath {
        @Override
        void gelu(float[] y, int n) {
            Gelu.apply(y, 0, n);
        }

        @Override
        void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps) {
            LayerNorm.apply(x, residual, rows, E, gamma, beta, eps);
        }

        @Override
        String name() {
            return "scalar";
        }
    }

    private static EncoderMath choose() {
        EncoderMath math;
        try {
            math = (EncoderMath) Class.forName("io.sparkattention.bert.VectorEncoderMath").getDeclaredConstructor()
                .newInstance();
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            LOG.debug("VectorEncoderMath unavailable: {}", noVectorApi.toString());
            math = new Scalar();
        }
        LOG.info("encoder GELU and LayerNorm: {}", math.name());
        return math;
    }
}
