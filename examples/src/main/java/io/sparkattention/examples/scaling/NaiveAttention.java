package io.sparkattention.examples.scaling;

import io.sparkattention.kernel.Gemm;

/**
 * Textbook attention for one head, the way a first implementation (or the seed notebook's numpy)
 * writes it: materialise the whole L×S score matrix, softmax each row, multiply by V. Its extra
 * memory is the L×S float32 matrix, O(n²): 1 GiB at n = 16,384, 16 GiB at 65,536. The two
 * products go through the same BLAS as the tiled kernel, so a time comparison measures the
 * algorithms, not two different matrix multiplies.
 */
public final class NaiveAttention {

    private NaiveAttention() {
    }

    /**
     * {@code softmax(scale·Q·Kᵀ)·V}.
     *
     * @param L     queries
     * @param S     keys
     * @param d     query/key width
     * @param dv    value width
     * @param q     L×d row-major
     * @param k     S×d
     * @param v     S×dv
     * @param scale usually {@code 1/sqrt(d)}
     * @return L×dv
     * @throws IllegalArgumentException when the L×S matrix cannot be one Java array
     */
    public static float[] forward(int L, int S, int d, int dv, float[] q, float[] k, float[] v, float scale) {
        if ((long) L * S > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("naive attention needs one L×S array: " + L + "×" + S + " is too large");
        }
        // (1) scores = scale · Q · Kᵀ, all L×S of them at once.
        float[] p = new float[L * S];
        Gemm.multiplyTransposed(L, S, d, scale, q, 0, d, k, 0, d, 0f, p, 0, S);
        // (2) row softmax in place, shifted by the row max for stability.
        for (int i = 0; i < L; i++) {
            int row = i * S;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < S; j++) {
                max = Math.max(max, p[row + j]);
            }
            float sum = 0f;
            for (int j = 0; j < S; j++) {
                float e = (float) Math.exp(p[row + j] - max);
                p[row + j] = e;
                sum += e;
            }
            float inv = 1f / sum;
            for (int j = 0; j < S; j++) {
                p[row + j] *= inv;
            }
        }
        // (3) out = P · V.
        float[] out = new float[L * dv];
        Gemm.multiply(L, dv, S, 1f, p, 0, S, v, 0, dv, 0f, out, 0, dv);
        return out;
    }
}
