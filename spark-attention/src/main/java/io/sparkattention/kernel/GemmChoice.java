package io.sparkattention.kernel;

import java.util.List;

/**
 * Picks the {@link LinearKernel} for the projections once per JVM and logs it, through the
 * mechanism every kernel family shares ({@link ImplementationChoice}).
 *
 * <p>System property {@value #PROPERTY}:
 * <ul>
 *   <li>{@code auto} (default): {@code vector} when the Vector API is visible and either the BLAS
 *       is not native ({@link Blas#isNative()}) or the vectors are 512 bits wide
 *       ({@link LinearKernel#preferredOverNativeBlas}); else {@code blas}. This is the rule
 *       {@link TileOpsChoice} applies to the attention tiles ({@link VectorOrBlas}). The
 *       projections' backward products (input and weight gradients) run on the same choice. With
 *       512-bit vectors the micro-kernel
 *       on its packed weight ran 128×768×768 projections 1.41× as fast as OpenBLAS held to its AVX2
 *       kernels ({@code OPENBLAS_CORETYPE=Haswell}) on a Zen 5 ({@code bench --gemm}, medians).
 *       {@code vector} is also taken when the native BLAS's rows are not independent
 *       ({@link BlasLinearKernel}: OpenBLAS's Haswell kernels, every AVX2 machine's), so that the
 *       default keeps a row's bits independent of the rows stacked with it;</li>
 *   <li>{@code vector}: the Java Vector API micro-kernel ({@link VectorLinearKernel});</li>
 *   <li>{@code blas}: {@code sgemm} from {@link Blas}.</li>
 * </ul>
 * Without {@code --add-modules=jdk.incubator.vector} the Vector classes fail
 * to link; that is caught here and {@code blas} is used, never a crash. Asking for {@code vector}
 * explicitly without the module is an error.
 */
final class GemmChoice {

    /** System property that forces the projection implementation. */
    static final String PROPERTY = "sparkattention.gemm";

    private static final ImplementationChoice<LinearKernel> CHOICE = new ImplementationChoice<>(
        "projection arithmetic", PROPERTY, List.of("auto", "vector", "blas"), GemmChoice::make);

    static final LinearKernel INSTANCE = CHOICE.choose(LinearKernel::name);

    private GemmChoice() {
    }

    /** A new implementation by name ({@code auto}, {@code vector}, {@code blas}). */
    static LinearKernel create(String requested) {
        return CHOICE.create(requested);
    }

    private static LinearKernel make(String name) {
        switch (name) {
            case "auto": {
                LinearKernel vector = vectorKernel();
                LinearKernel blas = new BlasLinearKernel(Blas.get());
                boolean ahead = vector != null && (vector.preferredOverNativeBlas() || !blas.rowsIndependent());
                return VectorOrBlas.autoPicksVector(vector != null, ahead) ? vector : blas;
            }
            case "vector":
                return ImplementationChoice.requireVector(vectorKernel(), "projection arithmetic");
            default:
                return new BlasLinearKernel(Blas.get());
        }
    }

    /** The Vector API micro-kernel, or null when {@code jdk.incubator.vector} is not visible. */
    static LinearKernel vectorKernel() {
        return ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorLinearKernel", LinearKernel.class);
    }
}
