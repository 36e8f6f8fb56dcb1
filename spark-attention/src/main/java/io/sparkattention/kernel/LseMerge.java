package io.sparkattention.kernel;

/**
 * The exact combiner of partial attention results over disjoint key sets.
 *
 * <p>Each partial is a normalised output row {@code O_k} with its log-sum-exp {@code lse_k}.
 * Their union is {@code lse = log Σ exp(lse_k)} and {@code O = Σ exp(lse_k − lse)·O_k}: the same
 * numbers (up to float rounding) as attending all keys at once. This is what lets one sequence's
 * keys be split across tasks. Merging in a fixed order gives bitwise-reproducible results.
 */
public final class LseMerge {

    private LseMerge() {
    }

    /**
     * Folds a partial {@code (out2, lse2)} into a running {@code (out1, lse1)}, in place.
     *
     * @param rows query rows
     * @param dv   output columns
     * @param out1 rows×dv running output, updated
     * @param lse1 rows running log-sum-exp, updated
     * @param out2 rows×dv partial output
     * @param lse2 rows partial log-sum-exp (−∞: the partial saw no key for that row)
     */
    public static void mergeInto(int rows, int dv, float[] out1, float[] lse1, float[] out2, float[] lse2) {
        if (out1.length < rows * dv || out2.length < rows * dv || lse1.length < rows || lse2.length < rows) {
            throw new IllegalArgumentException("partials too short for " + rows + "×" + dv);
        }
        for (int r = 0; r < rows; r++) {
            float a = lse1[r], b = lse2[r];
            if (b == Float.NEGATIVE_INFINITY) {
                continue;  // nothing to add
            }
            int o = r * dv;
            if (a == Float.NEGATIVE_INFINITY) {
                System.arraycopy(out2, o, out1, o, dv);
                lse1[r] = b;
                continue;
            }
            float mx = Math.max(a, b);
            float wa = (float) Math.exp(a - mx), wb = (float) Math.exp(b - mx);
            float total = wa + wb;
            float ca = wa / total, cb = wb / total;
            for (int t = 0; t < dv; t++) {
                out1[o + t] = ca * out1[o + t] + cb * out2[o + t];
            }
            lse1[r] = mx + (float) Math.log(total);
        }
    }
}
