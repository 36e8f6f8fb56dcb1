package io.sparkattention.kernel;

/**
 * Row-major matrix products on top of the column-major BLAS {@code sgemm}.
 *
 * <p>A row-major m×n matrix with leading dimension {@code ld} is, to BLAS, the column-major
 * n×m matrix with the same {@code ld}: its transpose. So {@code C = A·op(B)} in row-major is
 * computed as {@code Cᵀ = op(B)ᵀ·Aᵀ} in column-major, swapping the operands; no data moves.
 *
 * <p>Projections with a fixed weight ({@link #linear}, {@link LinearWeight}) go through the
 * projection kernel chosen once per JVM ({@link GemmChoice}); the general products go through
 * {@link Blas}.
 *
 * <p>These entry points check their arguments once ({@link #checkView}); the kernel's inner
 * loops call {@link Blas#get()} directly with views they have already validated.
 */
public final class Gemm {

    private Gemm() {
    }

    /**
     * {@code C[m×n] = alpha·A[m×k]·B[n×k]ᵀ + beta·C}, all row-major: the shape of {@code y = x·Wᵀ}
     * with PyTorch's {@code out×in} weights.
     */
    public static void multiplyTransposed(int m, int n, int k, float alpha,
                                          float[] a, int aOff, int lda,
                                          float[] b, int bOff, int ldb,
                                          float beta, float[] c, int cOff, int ldc) {
        checkView("A", a, aOff, m, k, lda);
        checkView("B", b, bOff, n, k, ldb);
        checkView("C", c, cOff, m, n, ldc);
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            scaleRows(c, cOff, m, n, ldc, beta);
            return;
        }
        // Column-major: Cᵀ(n×m) = B(n×k) · Aᵀ(k×m); B row-major is Bᵀ column-major, hence "T".
        Blas.get().sgemm("T", "N", n, m, k, alpha, b, bOff, ldb, a, aOff, lda, beta, c, cOff, ldc);
    }

    /** {@code C[m×n] = alpha·A[m×k]·B[k×n] + beta·C}, all row-major. */
    public static void multiply(int m, int n, int k, float alpha,
                                float[] a, int aOff, int lda,
                                float[] b, int bOff, int ldb,
                                float beta, float[] c, int cOff, int ldc) {
        checkView("A", a, aOff, m, k, lda);
        checkView("B", b, bOff, k, n, ldb);
        checkView("C", c, cOff, m, n, ldc);
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            scaleRows(c, cOff, m, n, ldc, beta);
            return;
        }
        Blas.get().sgemm("N", "N", n, m, k, alpha, b, bOff, ldb, a, aOff, lda, beta, c, cOff, ldc);
    }

    /**
     * {@code Y[m×out] = X[m×in]·W[out×in]ᵀ + bias}: a PyTorch {@code nn.Linear}. {@code bias} may be null.
     * Runs on the JVM's projection kernel ({@link LinearKernel#get()}: the Vector API micro-kernel
     * or the BLAS, see {@link GemmChoice}), preparing the weight for this call; a caller that applies
     * the same weight again prepares it once with {@link LinearWeight#of}.
     */
    public static float[] linear(float[] x, int m, int in, float[] w, int out, float[] bias) {
        return LinearWeight.of(w, out, in, bias).apply(x, m);
    }

    /**
     * Checks that a row-major {@code rows×cols} view with leading dimension {@code ld} starting at
     * {@code off} lies inside {@code data}. Empty views are always valid.
     */
    static void checkView(String name, float[] data, int off, int rows, int cols, int ld) {
        if (rows < 0 || cols < 0) {
            throw new IllegalArgumentException(name + ": negative shape " + rows + "×" + cols);
        }
        if (rows == 0 || cols == 0) {
            return;
        }
        if (data == null) {
            throw new IllegalArgumentException(name + ": null array for a " + rows + "×" + cols + " view");
        }
        if (ld < cols) {
            throw new IllegalArgumentException(name + ": leading dimension " + ld + " < " + cols + " columns");
        }
        long last = (long) off + (long) (rows - 1) * ld + cols;
        if (off < 0 || last > data.length) {
            throw new IllegalArgumentException(name + ": view " + rows + "×" + cols + " (ld " + ld + ") at offset "
                + off + " does not fit in " + data.length + " values");
        }
    }

    private static void scaleRows(float[] c, int off, int m, int n, int ldc, float beta) {
        for (int i = 0; i < m; i++) {
            int row = off + i * ldc;
            for (int j = 0; j < n; j++) {
                c[row + j] = beta == 0f ? 0f : beta * c[row + j];
            }
        }
    }
}
