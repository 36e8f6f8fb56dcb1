package io.sparkattention.examples.bench;

import java.util.Map;
import java.util.Objects;

/**
 * The attention classifier ({@code nn.AttentionClassifierNetwork}, the training fixtures'
 * {@code AttentionClassifier}) training on libtorch ({@link TorchRuntime#classifierTrainer}), as
 * a PyTorch loop over {@code nn.MultiheadAttention} and {@code nn.Linear} trains it: the
 * {@code bench --train --peer torch} contender. One step: zeroed gradients, forward, the loss
 * Σ wᵢ·CE(logitsᵢ, yᵢ) / Σ wᵢ, backward (autograd), then {@code torch.optim.Adam} (or
 * {@code AdamW} when the weight decay is above 0) with PyTorch's defaults β = (0.9, 0.999),
 * ε = 1e-8 at a constant rate.
 */
public interface TorchClassifierTrainer extends AutoCloseable {

    /**
     * The network and its optimiser.
     *
     * @param embedDim    E
     * @param numHeads    H, dividing E
     * @param numClasses  K ≥ 2
     * @param causal      token i attends to tokens j ≤ i only
     * @param residual    {@code h = x + a} (true) or {@code h = a}
     * @param pooling     {@code mean} (over the valid tokens), {@code first} or {@code last} (valid token)
     * @param stepSize    the optimiser's constant learning rate
     * @param weightDecay AdamW's decoupled decay on every tensor; 0: Adam
     */
    record Spec(int embedDim, int numHeads, int numClasses, boolean causal, boolean residual, String pooling,
                double stepSize, double weightDecay) {

        /** torch.optim.Adam's defaults. */
        public static final double BETA1 = 0.9, BETA2 = 0.999, EPSILON = 1e-8;

        public Spec {
            if (embedDim < 1 || numHeads < 1 || embedDim % numHeads != 0) {
                throw new IllegalArgumentException("numHeads " + numHeads + " must divide embedDim " + embedDim);
            }
            if (numClasses < 2) {
                throw new IllegalArgumentException("numClasses must be >= 2, got " + numClasses);
            }
            if (!"mean".equals(pooling) && !"first".equals(pooling) && !"last".equals(pooling)) {
                throw new IllegalArgumentException("pooling must be mean, first or last, got " + pooling);
            }
            if (!(stepSize > 0) || !(weightDecay >= 0)) {
                throw new IllegalArgumentException("stepSize " + stepSize + " must be > 0 and weightDecay "
                    + weightDecay + " >= 0");
            }
        }
    }

    /**
     * One batch: B rows of tokens zero-padded to {@code seqLen}, row b valid for its first
     * {@code lengths[b]} tokens (key padding mask), with its class and weight.
     *
     * @param tokens  B×seqLen×E row-major
     * @param seqLen  the padded length
     * @param lengths valid tokens of each row, in [1, seqLen]
     * @param labels  each row's class in [0, K)
     * @param weights each row's weight ≥ 0 (all 1: the plain mean)
     */
    record Batch(float[] tokens, int seqLen, int[] lengths, int[] labels, float[] weights) {
        public Batch {
            Objects.requireNonNull(tokens, "tokens");
            int b = lengths.length;
            if (b == 0 || labels.length != b || weights.length != b || seqLen < 1 || tokens.length % ((long) b * seqLen) != 0) {
                throw new IllegalArgumentException("a batch of " + b + " lengths, " + labels.length + " labels, "
                    + weights.length + " weights and " + tokens.length + " token values of length " + seqLen
                    + " does not fit together");
            }
            for (int r = 0; r < b; r++) {
                if (lengths[r] < 1 || lengths[r] > seqLen) {
                    throw new IllegalArgumentException("row " + r + " has length " + lengths[r] + ", expected 1.."
                        + seqLen);
                }
            }
        }

        /** B rows of {@code seqLen} valid tokens each, weight 1. */
        public static Batch full(float[] tokens, int seqLen, int[] labels) {
            int[] lengths = new int[labels.length];
            java.util.Arrays.fill(lengths, seqLen);
            float[] weights = new float[labels.length];
            java.util.Arrays.fill(weights, 1f);
            return new Batch(tokens, seqLen, lengths, labels, weights);
        }
    }

    /**
     * One optimiser step on the batch.
     *
     * @return the batch's weighted mean loss before the update
     */
    double step(Batch batch);

    /** The batch's weighted mean loss at the current weights, without a step. */
    double loss(Batch batch);

    /** A parameter's current value by its state_dict name (the network's constants). */
    float[] parameter(String name);

    @Override
    void close();

    /** The starting state_dict every trainer needs: the six tensors by name, row-major. */
    static void checkInitial(Map<String, float[]> initial, Spec spec) {
        int e = spec.embedDim(), k = spec.numClasses();
        Map<String, Integer> sizes = Map.of("attention.in_proj_weight", 3 * e * e, "attention.in_proj_bias", 3 * e,
            "attention.out_proj.weight", e * e, "attention.out_proj.bias", e, "classifier.weight", k * e,
            "classifier.bias", k);
        for (Map.Entry<String, Integer> s : sizes.entrySet()) {
            float[] t = initial.get(s.getKey());
            if (t == null || t.length != s.getValue()) {
                throw new IllegalArgumentException("initial tensor " + s.getKey() + " has "
                    + (t == null ? "no values" : t.length + " values") + ", expected " + s.getValue());
            }
        }
    }
}
