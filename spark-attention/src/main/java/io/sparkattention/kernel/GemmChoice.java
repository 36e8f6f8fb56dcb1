package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Picks the {@link LinearKernel} for the projections once per JVM and logs it.
 *
 * <p>System property {@value #PROPERTY}:
 * <ul>
 *   <li>{@code auto} (default): {@code vector} when the Vector API is visible and either the BLAS
 *       is not native ({@link Blas#isNative()}) or the vectors are 512 bits wide
 *       ({@link LinearKernel#preferredOverNativeBlas}); else {@code blas}. This is the rule
 *       {@link TileOpsChoice} applies to the attention tiles. With 512-bit vectors the micro-kernel
 *       on its packed weight ran 128×768×768 projections 1.41× as fast as OpenBLAS held to its AVX2
 *       kernels ({@code OPENBLAS_CORETYPE=Haswell}) on a Zen 5 ({@code bench --gemm}, medians);</li>
 *   <li>{@code vector}: the Java Vector API micro-kernel ({@link VectorLinearKernel});</li>
 *   <li>{@code blas}: {@code sgemm} from {@link Blas}.</li>
 * </ul>
 * The choice is a rule on the machine's properties, not a timing at start-up: every executor of
 * a cluster of like machines picks the same implementation, so results are reproducible across
 * executors and runs. Without {@code --add-modules=jdk.incubator.vector} the Vector classes fail
 * to link; that is caught here and {@code blas} is used, never a crash. Asking for {@code vector}
 * explicitly without the module is an error.
 */
final class GemmChoice {

    /** System property that forces the projection implementation. */
    static final String PROPERTY = "sparkattention.gemm";

    private static final Logger LOG = LoggerFactory.getLogger(GemmChoice.class);

    static final LinearKernel INSTANCE = choose(System.getProperty(PROPERTY, "auto"));

    private GemmChoice() {
    }

    static LinearKernel choose(String requested) {
        LinearKernel kernel = create(requested);
        LOG.info("projection arithmetic: {} ({}={}, Vector API {})", kernel.name(), PROPERTY, requested,
            vectorKernel() != null ? "visible" : "not visible");
        return kernel;
    }

    /** A new implementation by name ({@code auto}, {@code vector}, {@code blas}). */
    static LinearKernel create(String requested) {
        switch (requested.trim().toLowerCase(Locale.ROOT)) {
            case "auto": {
                LinearKernel vector = vectorKernel();
                if (vector != null && (!Blas.isNative() || vector.preferredOverNativeBlas())) {
                    return vector;
                }
                return new BlasLinearKernel(Blas.get());
            }
            case "vector": {
                LinearKernel vector = vectorKernel();
                if (vector == null) {
                    throw new IllegalStateException("projection arithmetic \"vector\" needs the Vector API: "
                        + "run the JVM with --add-modules=jdk.incubator.vector");
                }
                return vector;
            }
            case "blas":
                return new BlasLinearKernel(Blas.get());
            default:
                throw new IllegalArgumentException("projection arithmetic \"" + requested
                    + "\" (system property " + PROPERTY + "): expected auto, vector or blas");
        }
    }

    /**
     * The Vector API micro-kernel, or null when {@code jdk.incubator.vector} is not visible. By
     * name, so that this class links without the module; a missing module surfaces as a
     * {@link LinkageError} (NoClassDefFoundError) here.
     */
    static LinearKernel vectorKernel() {
        try {
            return (LinearKernel) Class.forName("io.sparkattention.kernel.VectorLinearKernel")
                .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            LOG.debug("VectorLinearKernel unavailable: {}", noVectorApi.toString());
            return null;
        }
    }
}
