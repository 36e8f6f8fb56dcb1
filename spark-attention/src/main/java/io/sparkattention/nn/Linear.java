package io.sparkattention.nn;

import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.Gemm;

/**
 * A small PyTorch {@code nn.Linear} on row-major views of flat arrays, forward and backward:
 * {@code Y[m×out] = X[m×in]·Wᵀ + b} with W stored out×in, read in place from a parameter vector
 * (the classifier's head, one pooled row at a time; the attention's projections run on prepared
 * weights, {@link TrainableSelfAttention}). Callers pass views they have sized (the products check
 * them through {@link Gemm}, the weight gradient does not). Gradients are added to.
 */
final class Linear {

    private Linear() {
    }

    /**
     * {@code y[m×out] = x[m×in]·W[out×in]ᵀ + b}.
     *
     * @param w    the weight at {@code wOff}, and {@code b} at {@code bOff} (null for none)
     * @param y    written at offset 0 with leading dimension {@code out}
     */
    static void forward(int m, int in, int out, float[] x, int xOff, float[] w, int wOff, float[] b, int bOff,
                        float[] y) {
        float beta = 0f;
        if (b != null) {
            for (int r = 0; r < m; r++) {
                System.arraycopy(b, bOff, y, r * out, out);
            }
            beta = 1f;
        }
        Gemm.multiplyTransposed(m, out, in, 1f, x, xOff, in, w, wOff, in, beta, y, 0, out);
    }

    /** {@code dx[m×in] = dy[m×out]·W[out×in]}, written at offset 0. */
    static void inputGradient(int m, int in, int out, float[] dy, float[] w, int wOff, float[] dx) {
        Gemm.multiply(m, in, out, 1f, dy, 0, out, w, wOff, in, 0f, dx, 0, in);
    }

    /**
     * {@code dW[out×in] += dy[m×out]ᵀ·x[m×in]}, added into {@code g} at {@code gOff} (m ≥ 1).
     * Column-major, that is {@code dWᵀ(in×out) += xᵀ(in×m)·dy(m×out)}: x row-major is xᵀ
     * column-major as it lies, dy row-major is dyᵀ column-major, hence "N", "T".
     */
    static void addWeightGradient(int m, int in, int out, float[] dy, float[] x, int xOff, float[] g, int gOff) {
        Blas.get().sgemm("N", "T", in, out, m, 1f, x, xOff, in, dy, 0, out, 1f, g, gOff, in);
    }

    /** {@code db[out] += Σ_rows dy[m×out]}, each column summed in float64 first, added into {@code g} at {@code gOff}. */
    static void addBiasGradient(int m, int out, float[] dy, float[] g, int gOff) {
        double[] sums = new double[out];
        for (int r = 0; r < m; r++) {  // row by row: dy is read in order
            int row = r * out;
            for (int c = 0; c < out; c++) {
                sums[c] += dy[row + c];
            }
        }
        for (int c = 0; c < out; c++) {
            g[gOff + c] += (float) sums[c];
        }
    }
}
