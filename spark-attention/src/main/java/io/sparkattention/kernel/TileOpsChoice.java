package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the {@link TileOps} implementation once per JVM and logs it.
 *
 * <p>System property {@value #PROPERTY}:
 * <ul>
 *   <li>{@code auto} (default): {@code vector} when the Vector API is visible and either the
 *       BLAS is not native ({@link Blas#isNative()}) or the vectors are 512 bits wide
 *       ({@link TileOps#preferredOverNativeBlas}); else {@code blas} (with the vectorised softmax
 *       when the Vector API is visible, else {@code blas-scalar}): {@link VectorOrBlas}'s rule,
 *       the projections' too ({@link GemmChoice}). With AVX2 per-tile native
 *       OpenBLAS calls are ahead of the Java micro-kernels; with AVX-512 the micro-kernels are
 *       ahead; and they are several times faster than netlib's VectorBLAS, the Java fallback
 *       BLAS (BENCHMARKS.md has the figures);</li>
 *   <li>{@code vector}: the Java Vector API micro-kernels ({@link VectorTileOps});</li>
 *   <li>{@code blas}: {@code sgemm} from {@link Blas} with the vectorised softmax when possible;</li>
 *   <li>{@code blas-scalar}: {@code sgemm} with the plain-Java softmax ({@link Math#exp}).</li>
 * </ul>
 * The Vector API ({@code jdk.incubator.vector}) is visible only when the JVM runs with
 * {@code --add-modules=jdk.incubator.vector}, which Spark's own launcher flags include. Without
 * it the Vector classes fail to link; that is caught here and the scalar paths are used, never a
 * crash. Asking for {@code vector} explicitly without the module is an error.
 */
final class TileOpsChoice {

    /** System property that forces the tile implementation. */
    static final String PROPERTY = "sparkattention.tileops";

    private static final Logger LOG = LoggerFactory.getLogger(TileOpsChoice.class);

    static final TileOps INSTANCE = choose(System.getProperty(PROPERTY, "auto"));

    private TileOpsChoice() {
    }

    static TileOps choose(String requested) {
        TileOps ops = create(requested);
        LOG.info("attention tile arithmetic: {} ({}={}, Vector API {})", ops.name(), PROPERTY, requested,
            vectorSoftmax() != null ? "visible" : "not visible");
        return ops;
    }

    /** A new implementation by name ({@code auto}, {@code vector}, {@code blas}, {@code blas-scalar}). */
    static TileOps create(String requested) {
        TileOps ops;
        switch (VectorOrBlas.normalise(requested)) {
            case "auto": {
                TileOps vector = vectorTileOps();
                if (VectorOrBlas.autoPicksVector(vector != null, vector != null && vector.preferredOverNativeBlas())) {
                    ops = vector;
                } else {
                    OnlineSoftmax softmax = vectorSoftmax();
                    ops = new BlasTileOps(Blas.get(), softmax != null ? softmax : new ScalarSoftmax());
                }
                break;
            }
            case "vector":
                ops = VectorOrBlas.requireVector(vectorTileOps(), "tile arithmetic");
                break;
            case "blas": {
                OnlineSoftmax softmax = vectorSoftmax();
                ops = new BlasTileOps(Blas.get(), softmax != null ? softmax : new ScalarSoftmax());
                break;
            }
            case "blas-scalar":
                ops = new BlasTileOps(Blas.get(), new ScalarSoftmax());
                break;
            default:
                throw new IllegalArgumentException("tile arithmetic \"" + requested
                    + "\" (system property " + PROPERTY + "): expected auto, vector, blas or blas-scalar");
        }
        return ops;
    }

    /** The Vector API softmax, or null when {@code jdk.incubator.vector} is not visible. */
    static OnlineSoftmax vectorSoftmax() {
        return VectorOrBlas.newVectorInstance("io.sparkattention.kernel.VectorSoftmax", OnlineSoftmax.class);
    }

    /** The Vector API micro-kernels, or null when {@code jdk.incubator.vector} is not visible. */
    static TileOps vectorTileOps() {
        return VectorOrBlas.newVectorInstance("io.sparkattention.kernel.VectorTileOps", TileOps.class);
    }
}
