package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * The rule by which the per-JVM choices ({@link GemmChoice} for the projections,
 * {@link TileOpsChoice} for the attention tiles) pick a Java Vector API implementation or the
 * BLAS, and the loading of the Vector API classes they share.
 *
 * <p>{@code auto} takes the Vector API implementation when the Vector API is visible and either
 * the BLAS is not native ({@link Blas#isNative()}: netlib's Java fallback is several times slower
 * than the micro-kernels) or the implementation says it is ahead of a native BLAS on this
 * machine (with 512-bit vectors: its {@code preferredOverNativeBlas}). The rule reads the
 * machine's properties, never a timing at start-up, so every executor of a cluster of like
 * machines picks the same implementation and results are reproducible across executors and runs.
 */
final class VectorOrBlas {

    private static final Logger LOG = LoggerFactory.getLogger(VectorOrBlas.class);

    private VectorOrBlas() {
    }

    /**
     * Whether {@code auto} takes the Vector API implementation.
     *
     * @param vectorVisible           whether the implementation could be made (the Vector API is visible)
     * @param preferredOverNativeBlas whether it is ahead of a native BLAS on this machine
     */
    static boolean autoPicksVector(boolean vectorVisible, boolean preferredOverNativeBlas) {
        return vectorVisible && (!Blas.isNative() || preferredOverNativeBlas);
    }

    /** A requested implementation's name, trimmed and in lower case. */
    static String normalise(String requested) {
        return requested.trim().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code vector} when it is not null, else the error that says how to make the Vector API
     * visible.
     *
     * @param what the arithmetic asked for ("projection arithmetic", "tile arithmetic")
     */
    static <T> T requireVector(T vector, String what) {
        if (vector == null) {
            throw new IllegalStateException(what + " \"vector\" needs the Vector API: "
                + "run the JVM with --add-modules=jdk.incubator.vector");
        }
        return vector;
    }

    /**
     * A new instance of a class that uses the Vector API, or null when {@code jdk.incubator.vector}
     * is not visible. By name, so that the callers link without the module; a missing module
     * surfaces as a {@link LinkageError} (NoClassDefFoundError) here.
     */
    static <T> T newVectorInstance(String className, Class<T> type) {
        try {
            return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            LOG.debug("{} unavailable: {}", className, noVectorApi.toString());
            return null;
        }
    }
}
