package io.sparkattention.viz;

/**
 * Per-head attention weights as one row-major H×L×S array ({@code (h·L + i)·S + j}): built from
 * nested arrays with their shape checked, and averaged over heads for the "Average" panel.
 */
final class HeadPlanes {

    private HeadPlanes() {
    }

    /**
     * @param weights H matrices of L rows of S values each
     * @return a new H×L×S array
     * @throws IllegalArgumentException naming the head and query when a dimension is empty or the
     *     arrays are ragged
     */
    static float[] flatten(float[][][] weights) {
        if (weights.length == 0 || weights[0] == null || weights[0].length == 0 || weights[0][0] == null
            || weights[0][0].length == 0) {
            throw new IllegalArgumentException("attention weights are empty: need at least one head, query and key");
        }
        int H = weights.length, L = weights[0].length, S = weights[0][0].length;
        float[] flat = new float[Math.multiplyExact(Math.multiplyExact(H, L), S)];
        for (int h = 0; h < H; h++) {
            if (weights[h] == null || weights[h].length != L) {
                throw new IllegalArgumentException("head " + h + " has " + (weights[h] == null ? "no" : weights[h].length)
                    + " query rows, expected L = " + L);
            }
            for (int i = 0; i < L; i++) {
                float[] row = weights[h][i];
                if (row == null || row.length != S) {
                    throw new IllegalArgumentException("head " + h + ", query " + i + " has "
                        + (row == null ? "no" : row.length) + " weights, expected S = " + S);
                }
                System.arraycopy(row, 0, flat, (h * L + i) * S, S);
            }
        }
        return flat;
    }

    /** Mean over heads of each cell's finite values; NaN where no head has one. */
    static float[] average(float[] weights, int heads, int plane) {
        float[] mean = new float[plane];
        for (int i = 0; i < plane; i++) {
            double sum = 0;
            int n = 0;
            for (int h = 0; h < heads; h++) {
                float x = weights[h * plane + i];
                if (Float.isFinite(x)) {
                    sum += x;
                    n++;
                }
            }
            mean[i] = n == 0 ? Float.NaN : (float) (sum / n);
        }
        return mean;
    }
}
