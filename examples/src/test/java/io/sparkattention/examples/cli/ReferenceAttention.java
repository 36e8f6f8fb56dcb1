package io.sparkattention.examples.cli;

/**
 * Naive scaled dot-product attention in float64, the reference for the command line's options:
 * grouped-query heads, causal mask with either alignment, sliding window.
 */
final class ReferenceAttention {

    private ReferenceAttention() {
    }

    /**
     * softmax(Q·Kᵀ/sqrt(d) + mask)·V per head; a query that may see no key gets zeros.
     *
     * @param q           L × (H·d)
     * @param k           S × (Hkv·d)
     * @param v           S × (Hkv·dv)
     * @param heads       H
     * @param kvHeads     Hkv, dividing H: query head h uses key/value head h / (H / Hkv)
     * @param causal      keys after the aligned diagonal are masked
     * @param bottomRight the diagonal is j = i + S − L (else j = i)
     * @param left        keys visible before the diagonal, −1 for all
     * @param right       keys visible after the diagonal, −1 for all
     * @return L × (H·dv)
     */
    static double[][] attention(double[][] q, double[][] k, double[][] v, int heads, int kvHeads, boolean causal,
                                boolean bottomRight, int left, int right) {
        int L = q.length, S = k.length;
        int d = q[0].length / heads, dv = v[0].length / kvHeads;
        int offset = bottomRight ? S - L : 0;
        double[][] out = new double[L][heads * dv];
        for (int h = 0; h < heads; h++) {
            int g = h / (heads / kvHeads);
            for (int i = 0; i < L; i++) {
                double[] score = new double[S];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < S; j++) {
                    int diag = i + offset;
                    boolean visible = (!causal || j <= diag) && (left < 0 || j >= diag - left)
                        && (right < 0 || j <= diag + right);
                    if (!visible) {
                        score[j] = Double.NEGATIVE_INFINITY;
                        continue;
                    }
                    double s = 0;
                    for (int c = 0; c < d; c++) {
                        s += q[i][h * d + c] * k[j][g * d + c];
                    }
                    score[j] = s / Math.sqrt(d);
                    max = Math.max(max, score[j]);
                }
                if (max == Double.NEGATIVE_INFINITY) {
                    continue;
                }
                double sum = 0;
                for (int j = 0; j < S; j++) {
                    score[j] = Math.exp(score[j] - max);
                    sum += score[j];
                }
                for (int j = 0; j < S; j++) {
                    for (int c = 0; c < dv; c++) {
                        out[i][h * dv + c] += score[j] / sum * v[j][g * dv + c];
                    }
                }
            }
        }
        return out;
    }

    /** A rows × cols matrix of uniform values in [−1, 1). */
    static double[][] random(java.util.Random random, int rows, int cols) {
        double[][] m = new double[rows][cols];
        for (double[] r : m) {
            for (int c = 0; c < cols; c++) {
                r[c] = random.nextDouble() * 2 - 1;
            }
        }
        return m;
    }
}
