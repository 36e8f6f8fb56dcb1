package io.sparkattention.nn;

/**
 * Softmax cross-entropy of one row's logits against its class, by the log-sum-exp
 * ({@code CE = log Σ exp(z) − z_y}, shifted by the largest logit so that no exponential
 * overflows), and its gradient {@code ∂CE/∂z = softmax(z) − onehot(y)}.
 */
final class SoftmaxCrossEntropy {

    private SoftmaxCrossEntropy() {
    }

    /** {@code log Σ exp(z_k)} over {@code k < count}, in float64. */
    static double logSumExp(float[] z, int count) {
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < count; k++) {
            max = Math.max(max, z[k]);
        }
        double sum = 0;
        for (int k = 0; k < count; k++) {
            sum += Math.exp(z[k] - max);
        }
        return max + Math.log(sum);
    }

    /**
     * The loss, and {@code weight·(softmax(z) − onehot(label))} into {@code dz}.
     *
     * @param z     K logits
     * @param dz    K values, written
     * @return {@code CE(z, label)} (not weighted)
     */
    static double lossAndGradient(float[] z, int count, int label, double weight, float[] dz) {
        double lse = logSumExp(z, count);
        for (int k = 0; k < count; k++) {
            double p = Math.exp(z[k] - lse);
            dz[k] = (float) (weight * (k == label ? p - 1 : p));
        }
        return lse - z[label];
    }
}
