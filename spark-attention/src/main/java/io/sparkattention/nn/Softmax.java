package io.sparkattention.nn;

/**
 * The softmax of a row of logits and its cross-entropy, through the log-sum-exp shifted by the
 * largest logit so that no exponential overflows, all in float64: the one place the training
 * loss, its gradient and a model's class probabilities are computed.
 * <pre>
 *   lse = log Σ exp(z_k) = max + log Σ exp(z_k − max)
 *   softmax(z)_k = exp(z_k − lse),   CE(z, y) = lse − z_y,   ∂CE/∂z = softmax(z) − onehot(y)
 * </pre>
 */
public final class Softmax {

    private Softmax() {
    }

    /** {@code log Σ exp(z_k)} over {@code k < count}. */
    public static double logSumExp(float[] z, int count) {
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

    /** {@code CE(z, label) = logsumexp(z) − z_label} over all of z. */
    public static double crossEntropy(float[] z, int label) {
        return logSumExp(z, z.length) - z[label];
    }

    /** {@code v = softmax(v)} in place: the largest value subtracted first, then normalised. */
    public static void softmaxInPlace(double[] v) {
        double max = Double.NEGATIVE_INFINITY;
        for (double z : v) {
            max = Math.max(max, z);
        }
        double sum = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.exp(v[i] - max);
            sum += v[i];
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= sum;
        }
    }

    /**
     * The loss, and {@code weight·(softmax(z) − onehot(label))} into {@code dz}.
     *
     * @param z  K logits
     * @param dz K values, written
     * @return {@code CE(z, label)} (not weighted)
     */
    public static double lossAndGradient(float[] z, int count, int label, double weight, float[] dz) {
        double lse = logSumExp(z, count);
        for (int k = 0; k < count; k++) {
            double p = Math.exp(z[k] - lse);
            dz[k] = (float) (weight * (k == label ? p - 1 : p));
        }
        return lse - z[label];
    }
}
