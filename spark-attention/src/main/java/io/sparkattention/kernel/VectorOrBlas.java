package io.sparkattention.kernel;

/**
 * The {@code auto} rule by which two families of {@link ImplementationChoice} ({@link GemmChoice}
 * for the projections, {@link TileOpsChoice} for the attention tiles) pick a Java Vector API
 * implementation or the BLAS.
 *
 * <p>{@code auto} takes the Vector API implementation when the Vector API is visible and either
 * the BLAS is not native ({@link Blas#isNative()}: netlib's Java fallback is several times slower
 * than the micro-kernels) or the implementation says it is ahead of a native BLAS on this
 * machine (with 512-bit vectors: its {@code preferredOverNativeBlas}). The rule reads the
 * machine's properties, never a timing at start-up, so every executor of a cluster of like
 * machines picks the same implementation and results are reproducible across executors and runs.
 */
final class VectorOrBlas {

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
}
