package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;

/** Projections through {@code sgemm} from {@link Blas}: the weight is used as it lies, the BLAS packs it per call. */
final class BlasLinearKernel extends LinearKernel {

    private final BLAS blas;

    BlasLinearKernel(BLAS blas) {
        this.blas = blas;
    }

    @Override
    float[] pack(float[] w, int n, int k) {
        return w;
    }

    @Override
    void multiplyAdd(int m, int n, int k, float[] x, float[] packed, float[] y) {
        // Column-major: yᵀ(n×m) += W(n×k)·xᵀ(k×m); W row-major reads as Wᵀ column-major, hence "T".
        blas.sgemm("T", "N", n, m, k, 1f, packed, 0, k, x, 0, k, 1f, y, 0, n);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName();
    }
}
