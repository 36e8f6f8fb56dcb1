package io.sparkattention.kernel;

import java.util.List;

/**
 * Picks the {@link TileOps} implementation once per JVM and logs it, through the mechanism every
 * kernel family shares ({@link ImplementationChoice}).
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

    private static final ImplementationChoice<TileOps> CHOICE = new ImplementationChoice<>(
        "attention tile arithmetic", PROPERTY, List.of("auto", "vector", "blas", "blas-scalar"), TileOpsChoice::make);

    static final TileOps INSTANCE = CHOICE.choose(TileOps::name);

    private TileOpsChoice() {
    }

    /** A new implementation by name ({@code auto}, {@code vector}, {@code blas}, {@code blas-scalar}). */
    static TileOps create(String requested) {
        return CHOICE.create(requested);
    }

    private static TileOps make(String name) {
        switch (name) {
            case "auto": {
                TileOps vector = vectorTileOps();
                if (VectorOrBlas.autoPicksVector(vector != null, vector != null && vector.preferredOverNativeBlas())) {
                    return vector;
                }
                return blas();
            }
            case "vector":
                return ImplementationChoice.requireVector(vectorTileOps(), "tile arithmetic");
            case "blas":
                return blas();
            default:
                return new BlasTileOps(Blas.get(), new ScalarSoftmax());
        }
    }

    /** {@code sgemm} tiles with the vectorised softmax when the Vector API is visible. */
    private static TileOps blas() {
        OnlineSoftmax softmax = vectorSoftmax();
        return new BlasTileOps(Blas.get(), softmax != null ? softmax : new ScalarSoftmax());
    }

    /** The Vector API softmax, or null when {@code jdk.incubator.vector} is not visible. */
    static OnlineSoftmax vectorSoftmax() {
        return ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorSoftmax", OnlineSoftmax.class);
    }

    /** The Vector API micro-kernels, or null when {@code jdk.incubator.vector} is not visible. */
    static TileOps vectorTileOps() {
        return ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorTileOps", TileOps.class);
    }
}
