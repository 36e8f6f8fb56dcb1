package io.sparkattention.testing;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.RowMask;

/**
 * The reference every kernel path is checked against: textbook attention in float64, with the
 * whole L×S score matrix materialised and every mask applied element by element from its
 * definition (no bands, no tiles, no shortcuts).
 */
public final class NaiveAttention {

    /** Output L×(H·dv), log-sum-exp H×L and per-head weights H×L×S, all float64. */
    public static final class Result {
        public final double[] out;
        public final double[] lse;
        public final double[] weights;

        Result(double[] out, double[] lse, double[] weights) {
            this.out = out;
            this.lse = lse;
            this.weights = weights;
        }

        /** Weights averaged over heads, L×S. */
        public double[] averagedWeights(int heads) {
            int plane = weights.length / heads;
            double[] avg = new double[plane];
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < plane; i++) {
                    avg[i] += weights[h * plane + i] / heads;
                }
            }
            return avg;
        }
    }

    private NaiveAttention() {
    }

    public static Result forward(AttentionSpec spec, AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dv = shape.valueDim();
        double scale = Float.isNaN(spec.scale()) ? 1.0 / Math.sqrt(d) : spec.scale();
        int validKeys = mask.validKeys() < 0 ? S : mask.validKeys();
        long off = spec.alignment() == CausalAlignment.TOP_LEFT ? 0 : (long) S - L;
        double[] out = new double[L * H * dv];
        double[] lse = new double[H * L];
        double[] weights = new double[H * L * S];
        for (int h = 0; h < H; h++) {
            int kv = h / (H / Hkv);
            for (int i = 0; i < L; i++) {
                double[] s = new double[S];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < S; j++) {
                    double dot = 0;
                    for (int t = 0; t < d; t++) {
                        dot += (double) q[i * H * d + h * d + t] * k[j * Hkv * d + kv * d + t];
                    }
                    s[j] = scale * dot;
                    if (mask.bias() != null) {
                        s[j] += mask.bias()[index(mask.bias().length, h, i, j, L, S)];
                    }
                    boolean visible = j < validKeys;
                    if (spec.causal()) {
                        visible &= j <= i + off;
                    }
                    if (spec.windowLeft() >= 0) {
                        visible &= j >= i + off - spec.windowLeft();
                    }
                    if (spec.windowRight() >= 0) {
                        visible &= j <= i + off + spec.windowRight();
                    }
                    if (mask.allowed() != null) {
                        visible &= mask.allowed()[index(mask.allowed().length, h, i, j, L, S)];
                    }
                    if (!visible) {
                        s[j] = Double.NEGATIVE_INFINITY;
                    }
                    max = Math.max(max, s[j]);
                }
                if (max == Double.NEGATIVE_INFINITY) {
                    lse[h * L + i] = Double.NEGATIVE_INFINITY;  // fully masked row: output and weights stay 0
                    continue;
                }
                double sum = 0;
                for (int j = 0; j < S; j++) {
                    s[j] = Math.exp(s[j] - max);
                    sum += s[j];
                }
                lse[h * L + i] = max + Math.log(sum);
                for (int j = 0; j < S; j++) {
                    double p = s[j] / sum;
                    weights[(h * L + i) * S + j] = p;
                    for (int t = 0; t < dv; t++) {
                        out[i * H * dv + h * dv + t] += p * v[j * Hkv * dv + kv * dv + t];
                    }
                }
            }
        }
        return new Result(out, lse, weights);
    }

    private static int index(int length, int h, int i, int j, int L, int S) {
        return (length == L * S ? 0 : h * L * S) + i * S + j;
    }
}
