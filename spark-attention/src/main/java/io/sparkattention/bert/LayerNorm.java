package io.sparkattention.bert;

/**
 * LayerNorm over the last axis of row-major rows, as PyTorch's {@code nn.LayerNorm}:
 * {@code y = (x − mean) / √(var + ε) · γ + β} with the biased variance, optionally after adding a
 * residual ({@code x + r}, the post-LN transformer's "add & norm") in the same pass.
 *
 * <p>The mean and the variance are accumulated in double (two passes over the row), so a row's
 * statistics are exact to float rounding whatever its width.
 */
public final class LayerNorm {

    private LayerNorm() {
    }

    /**
     * {@code x[r] = LN(x[r] + residual[r])} for rows {@code r < rows} of width {@code E};
     * {@code residual} may be null (plain LayerNorm).
     *
     * @param x        rows×E, normalised in place
     * @param residual rows×E added first, or null
     * @param gamma    E scales
     * @param beta     E shifts
     */
    public static void apply(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps) {
        for (int r = 0; r < rows; r++) {
            int o = r * E;
            if (residual != null) {
                for (int c = 0; c < E; c++) {
                    x[o + c] += residual[o + c];
                }
            }
            double sum = 0;
            for (int c = 0; c < E; c++) {
                sum += x[o + c];
            }
            double mean = sum / E;
            double sq = 0;
            for (int c = 0; c < E; c++) {
                double d = x[o + c] - mean;
                sq += d * d;
            }
            double inv = 1.0 / Math.sqrt(sq / E + eps);
            for (int c = 0; c < E; c++) {
                x[o + c] = (float) ((x[o + c] - mean) * inv * gamma[c] + beta[c]);
            }
        }
    }
}
