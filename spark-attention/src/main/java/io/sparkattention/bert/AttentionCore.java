package io.sparkattention.bert;

import io.sparkattention.kernel.Blas;

/**
 * Training self-attention of one row straight from the fused projection {@code [q | k | v]}
 * (L×3E, E = H·d), with dropout on the probabilities, head by head on BLAS products over strided
 * views (q, k and v are never copied apart). The forward keeps only the log-sum-exp per head and
 * query; the backward recomputes P from it and regenerates the same dropout mask from its key
 * ({@link DropoutMask}), as FlashAttention does, so what a row keeps is H·L floats per layer
 * rather than H·L²; the scratch is one L×L plane of scores and one of their gradients (at
 * MiniLM's 512 positions, 2 MiB in all).
 * <pre>
 *   per head h (columns [h·d, (h+1)·d) of q, k, v; M the mask's factors, 0 or 1/(1−p)):
 *   forward:   S = scale·q_h·k_hᵀ                    L×L
 *              lse_i = log Σ_j exp(S_ij);  P = exp(S − lse)
 *              ctx_h = (P∘M)·v_h                      L×d, into ctx[:, h·d …)
 *   backward:  dv_h = (P∘M)ᵀ·dctx_h;  dP = (dctx_h·v_hᵀ)∘M
 *              D_i = Σ_j P_ij·dP_ij;   dS = P∘(dP − D)
 *              dq_h = scale·dS·k_h;    dk_h = scale·dSᵀ·q_h
 * </pre>
 * Rows have no mask (BERT's rows are unpadded), so no row is fully masked. Not thread-safe: one
 * per thread.
 */
final class AttentionCore {

    private float[] scores = new float[0];
    private float[] gradScores = new float[0];

    private void ensure(int L) {
        if (scores.length < L * L) {
            scores = new float[L * L];
            gradScores = new float[L * L];
        }
    }

    /**
     * @param qkv   L×3E row-major
     * @param ctx   L×E, written
     * @param lse   H×L, written
     * @param mask  the probabilities' dropout mask, or null for none
     */
    void forward(float[] qkv, int L, int H, int d, float scale, float[] ctx, float[] lse, DropoutMask mask) {
        ensure(L);
        int E = H * d;
        for (int h = 0; h < H; h++) {
            scores(qkv, L, E, d, h, scale);
            for (int i = 0; i < L; i++) {
                int row = i * L;
                float max = Float.NEGATIVE_INFINITY;
                for (int j = 0; j < L; j++) {
                    max = Math.max(max, scores[row + j]);
                }
                double sum = 0;
                for (int j = 0; j < L; j++) {
                    float p = (float) Math.exp(scores[row + j] - max);
                    scores[row + j] = p;
                    sum += p;
                }
                float inv = (float) (1.0 / sum);
                for (int j = 0; j < L; j++) {
                    scores[row + j] *= inv;
                }
                lse[h * L + i] = (float) (max + Math.log(sum));
                if (mask != null) {
                    mask.apply(scores, row, L, ((long) h * L + i) * L);
                }
            }
            // ctx_h (L×d, ld E) = P'(L×L) · v_h (L×d, ld 3E)
            product(false, L, d, L, 1f, scores, 0, L, qkv, 2 * E + h * d, 3 * E, 0f, ctx, h * d, E);
        }
    }

    /**
     * @param qkv   the forward's L×3E input
     * @param lse   the forward's H×L log-sum-exp
     * @param dctx  L×E, the gradient of ctx
     * @param dqkv  L×3E, written: {@code [dq | dk | dv]}
     * @param mask  the forward's mask, or null
     */
    void backward(float[] qkv, int L, int H, int d, float scale, float[] lse, float[] dctx, float[] dqkv,
                  DropoutMask mask) {
        ensure(L);
        int E = H * d;
        for (int h = 0; h < H; h++) {
            scores(qkv, L, E, d, h, scale);
            for (int i = 0; i < L; i++) {
                int row = i * L;
                float m = lse[h * L + i];
                for (int j = 0; j < L; j++) {
                    scores[row + j] = (float) Math.exp(scores[row + j] - m);
                }
            }
            // dP' (L×L) = dctx_h (L×d, ld E) · v_hᵀ
            productTransposed(L, L, d, dctx, h * d, E, qkv, 2 * E + h * d, 3 * E, gradScores, 0, L);
            for (int i = 0; i < L; i++) {
                int row = i * L;
                long first = ((long) h * L + i) * L;
                if (mask != null) {
                    mask.apply(gradScores, row, L, first);
                }
                double D = 0;
                for (int j = 0; j < L; j++) {
                    D += (double) scores[row + j] * gradScores[row + j];
                }
                float dd = (float) D;
                for (int j = 0; j < L; j++) {
                    gradScores[row + j] = scores[row + j] * (gradScores[row + j] - dd);
                }
                if (mask != null) {
                    mask.apply(scores, row, L, first);  // P' for dv
                }
            }
            // dv_h (L×d, ld 3E) = P'ᵀ · dctx_h
            product(true, L, d, L, 1f, scores, 0, L, dctx, h * d, E, 0f, dqkv, 2 * E + h * d, 3 * E);
            // dq_h = scale·dS·k_h;  dk_h = scale·dSᵀ·q_h
            product(false, L, d, L, scale, gradScores, 0, L, qkv, E + h * d, 3 * E, 0f, dqkv, h * d, 3 * E);
            product(true, L, d, L, scale, gradScores, 0, L, qkv, h * d, 3 * E, 0f, dqkv, E + h * d, 3 * E);
        }
    }

    /** scores (L×L) = scale·q_h·k_hᵀ. */
    private void scores(float[] qkv, int L, int E, int d, int h, float scale) {
        // row-major C = A·Bᵀ is column-major Cᵀ = B·Aᵀ
        Blas.get().sgemm("T", "N", L, L, d, scale, qkv, E + h * d, 3 * E, qkv, h * d, 3 * E, 0f, scores, 0, L);
    }

    /** Row-major {@code C[m×n] = alpha·op(A)·B + beta·C}, op(A) = A (m×k) or Aᵀ (A stored k×m). */
    private static void product(boolean transposeA, int m, int n, int k, float alpha, float[] a, int aOff, int lda,
                                float[] b, int bOff, int ldb, float beta, float[] c, int cOff, int ldc) {
        // column-major: Cᵀ = Bᵀ·op(A)ᵀ; B row-major is Bᵀ column-major ("N"), A row-major is Aᵀ
        Blas.get().sgemm("N", transposeA ? "T" : "N", n, m, k, alpha, b, bOff, ldb, a, aOff, lda, beta, c, cOff,
            ldc);
    }

    /** Row-major {@code C[m×n] = A[m×k]·B[n×k]ᵀ}. */
    private static void productTransposed(int m, int n, int k, float[] a, int aOff, int lda, float[] b, int bOff,
                                          int ldb, float[] c, int cOff, int ldc) {
        Blas.get().sgemm("T", "N", n, m, k, 1f, b, bOff, ldb, a, aOff, lda, 0f, c, cOff, ldc);
    }
}
