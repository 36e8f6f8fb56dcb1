package io.sparkattention.bert;

/**
 * LayerNorm over the last axis of row-major rows, as PyTorch's {@code nn.LayerNorm}:
 * {@code y = (x − mean) / √(var + ε) · γ + β} with the biased variance, optionally after adding a
 * residual ({@code x + r}, the post-LN transformer's "add & norm") in the same pass; and its
 * backward pass.
 *
 * <p><b>The accumulation rule</b>, the same on the scalar path here and the Vector API path
 * ({@code VectorEncoderMath}): the residual is added in float32 (as PyTorch adds two float32
 * tensors), the mean and the variance are accumulated in float64 over two passes of the row, and
 * {@code (x − mean)·(1/σ)·γ + β} is evaluated in float64 and rounded once. Float64 sums keep a
 * row's statistics exact to the inputs' rounding whatever the width (a float32 sum of 768 values
 * loses about 10 bits of its low end, more than the 1e-5 budget of a deep encoder leaves), and
 * make the two paths differ only in the order of the row sums (the vector path sums lane-wise),
 * well below a float32 ulp of the result. The double lanes cost half the vector width in a pass
 * that is a few percent of a layer's time.
 *
 * <p>Backward, per row with x̂ = (x − mean)·rstd and g = dy∘γ (all sums in float64):
 * <pre>
 *   dγ += Σ_rows dy∘x̂,   dβ += Σ_rows dy,   dx = rstd·(g − mean(g) − x̂·mean(g∘x̂))
 * </pre>
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
        forward(x, residual, rows, E, gamma, beta, eps, null, null);
    }

    /**
     * {@link #apply}, keeping what the backward pass needs when {@code xhat} is not null.
     *
     * @param xhat rows×E, written with x̂ (float32), or null
     * @param rstd rows, written with 1/√(var + ε), or null (with xhat)
     */
    static void forward(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps,
                        float[] xhat, float[] rstd) {
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
            if (xhat != null) {
                rstd[r] = (float) inv;
                for (int c = 0; c < E; c++) {
                    xhat[o + c] = (float) ((x[o + c] - mean) * inv);
                }
            }
            for (int c = 0; c < E; c++) {
                x[o + c] = (float) ((x[o + c] - mean) * inv * gamma[c] + beta[c]);
            }
        }
    }

    /**
     * The backward pass: {@code dx} from {@code dy}, and γ's and β's gradients added.
     *
     * @param dy     rows×E, the gradient of the output
     * @param xhat   rows×E, from {@link #forward}
     * @param rstd   rows, from {@link #forward}
     * @param dx     rows×E, written (may be dy itself)
     * @param grad   where dγ (at {@code gammaOff}) and dβ (at {@code betaOff}) are added; null to skip them
     * @param sums   at least 2E doubles of scratch for the float64 sums of dγ and dβ over the rows
     *               (overwritten; unused without grad)
     */
    static void backward(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma, float[] dx,
                         float[] grad, int gammaOff, int betaOff, double[] sums) {
        if (grad != null) {
            java.util.Arrays.fill(sums, 0, 2 * E, 0.0);
        }
        for (int r = 0; r < rows; r++) {
            int o = r * E;
            double sumG = 0, sumGx = 0;
            for (int c = 0; c < E; c++) {
                double g = (double) dy[o + c] * gamma[c];
                sumG += g;
                sumGx += g * xhat[o + c];
                if (grad != null) {
                    sums[c] += (double) dy[o + c] * xhat[o + c];
                    sums[E + c] += dy[o + c];
                }
            }
            double meanG = sumG / E, meanGx = sumGx / E, inv = rstd[r];
            for (int c = 0; c < E; c++) {
                double g = (double) dy[o + c] * gamma[c];
                dx[o + c] = (float) (inv * (g - meanG - xhat[o + c] * meanGx));
            }
        }
        if (grad != null) {
            for (int c = 0; c < E; c++) {
                grad[gammaOff + c] += (float) sums[c];
                grad[betaOff + c] += (float) sums[E + c];
            }
        }
    }
}
