package io.sparkattention.kernel;

/**
 * Dropout on the attention probabilities of one sequence, as FlashAttention applies it: the
 * forward multiplies each probability {@code P[h][i][j]} by its factor before {@code P·V}
 * (inverted dropout: {@code 1/(1 − p)} when kept, 0 when dropped), and the backward regenerates
 * the same factors tile by tile instead of storing the mask, so the decision for (head, query,
 * key) must be a pure function of those three indices (a counter-based generator, never a
 * stateful one). The softmax's normaliser and the log-sum-exp are those of the undropped
 * probabilities, and the attention weights a kernel writes are never dropped.
 *
 * <pre>
 *   forward:   O  = (P∘M)·V                            M[h][i][j] = factor(h, i, j)
 *   backward:  dV = (P∘M)ᵀ·dO;  dP = (dO·Vᵀ)∘M;  D = rowsum(dO∘O);  dS = P∘(dP − D)
 * </pre>
 * Implementations are immutable and thread-safe: the parallel passes call them from any thread.
 */
public interface ProbabilityDropout {

    /**
     * The factor of probability (head {@code h}, query {@code i}, key {@code j}) of the sequence:
     * {@code 1/(1 − p)} when kept, 0 when dropped.
     */
    float factor(int h, int i, int j);

    /**
     * {@code s[c·lds + r] *= factor(h, i0 + r, j0 + c)} for queries r &lt; w and keys c &lt; nk: the
     * factors applied to a key-major strip (the kernels' score layout), to P in the forward and to
     * P and dP in the backward.
     */
    static void apply(ProbabilityDropout dropout, int h, int i0, int j0, float[] s, int lds, int w, int nk) {
        for (int c = 0; c < nk; c++) {
            final int row = c * lds, j = j0 + c;
            for (int r = 0; r < w; r++) {
                s[row + r] *= dropout.factor(h, i0 + r, j);
            }
        }
    }
}
