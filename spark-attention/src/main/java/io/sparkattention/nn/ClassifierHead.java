package io.sparkattention.nn;

import java.util.Arrays;
import java.util.Objects;

/**
 * The one head of every sequence classifier the library trains (the attention classifier's and
 * the fine-tuned BERT classifier's): pooling, a PyTorch {@code nn.Linear(E, K)} whose weights come
 * from the flat parameter vector (its gradients go back into the same places), softmax
 * cross-entropy. Per row of L tokens (h: L×E, the top states):
 * <pre>
 *   forward:   p = pool(h)                       E      ({@link #pool})
 *              [p = dropout(p), by a caller that drops out]
 *              z = p·Wᵀ + b                       K      ({@link #logits}: float64 sums)
 *   loss:      CE = logsumexp(z) − z_y;  dz = w·(softmax(z) − onehot(y))   ({@link #lossAndGradient})
 *   backward:  dW += dz·pᵀ,  db += dz              float32, into the caller's pending gradient
 *              dp = Wᵀ·dz                          E      ({@link #pooledGradient}: float64 sums)
 *              dh = pool'ᵀ·dp                      L×E    ({@link #unpool})
 * </pre>
 * Each row's logits and gradients are its own: nothing depends on the rows beside it nor on the
 * BLAS. Holds a copy of W and b, no buffers (the callers own their rows' scratch): one per bound
 * evaluator.
 */
public final class ClassifierHead {

    /** Name of the head's weight, K×E (PyTorch's {@code classifier.weight}). */
    public static final String WEIGHT = "classifier.weight";
    /** Name of the head's bias, K. */
    public static final String BIAS = "classifier.bias";

    private final Pooling pooling;
    private final float[] weight;
    private final float[] bias;
    private final int width;
    private final int classes;
    private final int weightOffset;
    private final int biasOffset;

    /**
     * @param pooling how a row's states become one vector (mean, first or last: max has no backward)
     * @param theta   the flat parameter vector, whose W and b are copied
     * @param weight  the weight's place in theta, shape [K, E]
     * @param bias    the bias's place in theta, shape [K]
     * @throws IllegalArgumentException when the shapes do not fit each other or theta
     */
    public ClassifierHead(Pooling pooling, float[] theta, ParameterTensor weight, ParameterTensor bias) {
        this.pooling = Objects.requireNonNull(pooling, "pooling");
        Objects.requireNonNull(theta, "theta");
        int[] w = weight.shape(), b = bias.shape();
        if (w.length != 2 || b.length != 1 || w[0] != b[0] || w[0] < 1 || w[1] < 1) {
            throw new IllegalArgumentException("head tensors " + weight.name() + " " + Arrays.toString(w) + " and "
                + bias.name() + " " + Arrays.toString(b) + " are not [K, E] and [K] with K, E ≥ 1");
        }
        if ((long) weight.offset() + weight.size() > theta.length || (long) bias.offset() + bias.size() > theta.length) {
            throw new IllegalArgumentException("head tensors lie past the " + theta.length + " parameters");
        }
        this.classes = w[0];
        this.width = w[1];
        this.weightOffset = weight.offset();
        this.biasOffset = bias.offset();
        this.weight = weight.slice(theta);
        this.bias = bias.slice(theta);
    }

    /** Whether W and b were copied from {@code theta}'s current values, compared bit for bit. */
    public boolean holds(float[] theta) {
        return Arrays.equals(weight, 0, weight.length, theta, weightOffset, weightOffset + weight.length)
            && Arrays.equals(bias, 0, bias.length, theta, biasOffset, biasOffset + bias.length);
    }

    /** K, the number of classes. */
    public int classes() {
        return classes;
    }

    /** E, the width of a pooled vector. */
    public int width() {
        return width;
    }

    /** {@code pooled = pool(h)} over a row's {@code length} states at offset 0 of h (L×E). */
    public void pool(float[] h, int length, float[] pooled) {
        pooling.pool(h, length, width, pooled);
    }

    /** {@code z = pooled·Wᵀ + b}, each logit summed in float64 from its bias. */
    public void logits(float[] pooled, float[] z) {
        for (int k = 0; k < classes; k++) {
            int row = k * width;
            double s = bias[k];
            for (int j = 0; j < width; j++) {
                s += (double) weight[row + j] * pooled[j];
            }
            z[k] = (float) s;
        }
    }

    /**
     * The row's cross-entropy, and {@code weight·(softmax(z) − onehot(label))} into {@code dz}.
     *
     * @return {@code CE(z, label)}, not weighted
     */
    public double lossAndGradient(float[] z, int label, double weight, float[] dz) {
        return Softmax.lossAndGradient(z, classes, label, weight, dz);
    }

    /** The row's cross-entropy from its logits alone. */
    public double loss(float[] z, int label) {
        return Softmax.crossEntropy(z, label);
    }

    /** {@code dW += dz·pooledᵀ} and {@code db += dz} (float32) into {@code grad}, the flat vector's pending sums. */
    public void addParameterGradient(float[] dz, float[] pooled, float[] grad) {
        for (int k = 0; k < classes; k++) {
            float d = dz[k];
            grad[biasOffset + k] += d;
            int row = weightOffset + k * width;
            for (int j = 0; j < width; j++) {
                grad[row + j] += d * pooled[j];
            }
        }
    }

    /** {@code dPooled = Wᵀ·dz}, each value summed in float64 over the classes. */
    public void pooledGradient(float[] dz, float[] dPooled) {
        for (int j = 0; j < width; j++) {
            double s = 0;
            for (int k = 0; k < classes; k++) {
                s += (double) weight[k * width + j] * dz[k];
            }
            dPooled[j] = (float) s;
        }
    }

    /** {@code dh = pool'ᵀ·dPooled} over the row's {@code length} states at offset 0 of dh (written). */
    public void unpool(float[] dPooled, int length, float[] dh) {
        pooling.backward(dPooled, length, width, dh);
    }
}
