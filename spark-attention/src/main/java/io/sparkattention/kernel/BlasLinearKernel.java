package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;
import dev.ludovic.netlib.blas.NativeBLAS;

import java.util.Arrays;

/**
 * Projections and their gradients through {@code sgemm} from {@link Blas}: the weight is used as it
 * lies (its transpose is materialised once), the BLAS packs it per call.
 *
 * <p>Rows are independent ({@link #rowsIndependent()}) when the native BLAS, as this JVM loaded
 * it, sums each element of a product over k in the same order whatever m is and wherever the row
 * sits. OpenBLAS 0.3.21's SkylakeX kernels do, except in the small-matrix kernel they take for
 * {@code "T","N"} products with at most {@link #SMALL_PRODUCT_MAX_ELEMENTS} output elements
 * ({@code sgemm_small_kernel_permit}, which also needs k ≥ 32 and m·n·k ≤ 10⁶): a projection whose
 * m·n is that small is therefore run on zero-padded rows past the cut-off. Its Haswell kernels
 * (every AVX2 machine's, and any machine's under {@code OPENBLAS_CORETYPE=Haswell}) do not: a
 * 12-row block's last six rows, and the rows of its 8-, 4-, 2- and 1-row edge kernels, round
 * differently from the same rows elsewhere (measured on 0.3.21). So the property is measured once
 * per BLAS instance ({@link RowPlacementProbe}) rather than assumed from the library's name;
 * {@link GemmChoice}'s {@code auto} does not pick a BLAS whose rows are not independent when the
 * Vector API kernel is there, and stacked callers run one sequence at a time on it.
 * netlib's Java BLAS (VectorBLAS) blocks by m, so on it rows are never independent.
 * {@code LinearWeightRowsTest} checks the JVM's BLAS, and {@code OpenBlasCoreTypesTest} both
 * OpenBLAS kernel families.
 */
final class BlasLinearKernel extends LinearKernel {

    /**
     * Largest m·n of a {@code "T","N"} {@code sgemm} that OpenBLAS may send to its small-matrix
     * kernel (another summation order than its general kernel); products up to this size are
     * padded past it.
     */
    static final int SMALL_PRODUCT_MAX_ELEMENTS = 1200;

    /** The padded rows of a small product's x and y, per thread. */
    private static final ThreadLocal<float[][]> PADDED = ThreadLocal.withInitial(() -> new float[2][0]);

    private final BLAS blas;
    private final boolean rowsIndependent;

    BlasLinearKernel(BLAS blas) {
        this.blas = blas;
        this.rowsIndependent = blas instanceof NativeBLAS && RowPlacementProbe.rowsIndependent(this);
    }

    @Override
    boolean rowsIndependent() {
        return rowsIndependent;
    }

    /** The BLAS library instance the products run in: what {@link RowPlacementProbe} measures. */
    Object library() {
        return blas;
    }

    @Override
    float[] pack(float[] w, int n, int k) {
        return w;
    }

    /** The fewest rows a product over an n-wide output runs on: past the small-matrix cut-off. */
    static int minRows(int n) {
        return SMALL_PRODUCT_MAX_ELEMENTS / n + 1;
    }

    @Override
    void multiplyAdd(int m, int n, int k, float[] x, float[] packed, float[] y, int yOff) {
        int rows = minRows(n);
        if (m >= rows) {
            sgemm(m, n, k, x, packed, y, yOff);
            return;
        }
        // x (m×k) and y (m×n) padded with zero rows to rows×k and rows×n; only the first m rows go back.
        float[][] pad = PADDED.get();
        if (pad[0].length < rows * k) {
            pad[0] = new float[rows * k];
        }
        if (pad[1].length < rows * n) {
            pad[1] = new float[rows * n];
        }
        float[] px = pad[0], py = pad[1];
        System.arraycopy(x, 0, px, 0, m * k);
        Arrays.fill(px, m * k, rows * k, 0f);
        System.arraycopy(y, yOff, py, 0, m * n);
        Arrays.fill(py, m * n, rows * n, 0f);
        sgemm(rows, n, k, px, packed, py, 0);
        System.arraycopy(py, 0, y, yOff, m * n);
    }

    private void sgemm(int m, int n, int k, float[] x, float[] packed, float[] y, int yOff) {
        // Column-major: yᵀ(n×m) += W(n×k)·xᵀ(k×m); W row-major reads as Wᵀ column-major, hence "T".
        blas.sgemm("T", "N", n, m, k, 1f, packed, 0, k, x, 0, k, 1f, y, yOff, n);
    }

    @Override
    void addWeightGradient(int m, int in, int out, float[] dy, int dyOff, int ldDy, float[] x, float[] dw, int dwOff,
                           WeightGradient scratch) {
        // Column-major: dWᵀ(in×out) += xᵀ(in×m)·dy(m×out); x row-major is xᵀ column-major as it
        // lies, dy row-major (leading dimension ldDy) is dyᵀ column-major, hence "N", "T".
        blas.sgemm("N", "T", in, out, m, 1f, x, 0, in, dy, dyOff, ldDy, 1f, dw, dwOff, in);
    }

    @Override
    public String name() {
        return "blas:" + blas.getClass().getSimpleName();
    }
}
