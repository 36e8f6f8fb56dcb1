package io.sparkattention.bert;

/** Small helpers of the blocks' backward passes. */
final class Projections {

    private Projections() {
    }

    /**
     * {@code db[out] += Σ_rows dy[r][col0 + c]}: the bias gradient of a projection whose m output
     * rows lie {@code ld} apart from column {@code col0} of dy; each column summed in float64, then
     * added into {@code grad} at {@code off}.
     */
    static void addBiasGradient(int m, int out, float[] dy, int col0, int ld, float[] grad, int off) {
        double[] sums = new double[out];
        for (int r = 0; r < m; r++) {
            int row = r * ld + col0;
            for (int c = 0; c < out; c++) {
                sums[c] += dy[row + c];
            }
        }
        for (int c = 0; c < out; c++) {
            grad[off + c] += (float) sums[c];
        }
    }
}
