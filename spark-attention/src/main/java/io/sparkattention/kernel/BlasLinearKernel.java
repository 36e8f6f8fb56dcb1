package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;

/**
 * Projections and their gradients through {@code sgemm} from {@link Blas}: the weight is used as it
 * lies (its transpose is materialised once), the BLAS packs it per call.
 */
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
    void multiplyAdd(int m, int n, int k, float[] x, float[] packed, float[] y, int yOff) {
        // Column-major: yᵀ(n×m) += W(n×k)·xᵀ(k×m); W row-major reads as Wᵀ column-major, hence "T".
        blas.sgemm("T", "N", n, m, k, 1f, packed, 0, k, x, 0, k, 1f, y, yOff, n);
    }

    @Override
    void addWeightGradient(int m, int in, int out, float[] dy, float[] x, float[] dw, int dwOff,
                           WeightGradient scratch) {
        // Column-major: dWᵀ(in×out) += xᵀ(in×m)·dy(m×out); x row-major is xᵀ column-major as it
        // lies, dy row-major is dyᵀ column-major, hence "N", "T".
        blas.sgemm("N", "T", in, out, m, 1f, x, 0, in, dy, 0, out, 1f, dw, dwOff, in);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName();
    }
}
