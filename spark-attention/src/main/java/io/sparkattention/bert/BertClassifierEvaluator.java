package io.sparkattention.bert;

/**
 * One {@link BertClassifierNetwork} evaluated at one trainable parameter vector: per-row losses
 * with their gradients, and logits. Made by {@link BertClassifierNetwork#bind}. It holds the
 * trainable layers' prepared weights and its own scratch (activation records grown to the longest
 * row seen, at most the encoder's maxPositions), so rows make little garbage. Not thread-safe: one
 * per thread.
 *
 * <p>Per row (x₀ the frozen prefix's states, or the embeddings' output when they train):
 * <pre>
 *   forward:   x = layer_n(x) for each trainable layer, each keeping its activation record
 *              pooled = pool(x);  z = pooled·Wᵀ + b;  CE = logsumexp(z) − z_y
 *   backward:  dz = w·(softmax(z) − onehot(y));  dW += dz·pooledᵀ,  db += dz,  dpooled = Wᵀ·dz
 *              dx = pool'ᵀ·dpooled;  dx = layer_n.backward(dx) top to bottom;  embeddings' backward
 * </pre>
 * A row's gradient is computed in float32 and added into the caller's float64 sums, so it is the
 * same whatever partition or thread computes it.
 */
public final class BertClassifierEvaluator {

    BertClassifierEvaluator() {
    }

    /** The network this evaluates. */
    public BertClassifierNetwork network() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /**
     * One row's contribution to a step: adds {@code weight·∂CE(logits, label)/∂θ} into {@code grad}
     * and returns {@code weight·CE}. The caller sums rows in a fixed order and divides both by
     * Σ weight (the fixtures' loss, {@code Σ wᵢ·CEᵢ / Σ wᵢ}). A training binding applies dropout with
     * masks keyed by (seed, step, {@code rowKey}, site, element).
     *
     * @param ids          the row's token ids ([CLS] … [SEP] in place), 1 ≤ L ≤ maxPositions
     * @param frozenStates the row's {@link BertClassifierNetwork#frozenStates} (L×E), or null to
     *                     compute them here; must be null when the embeddings train
     * @param rowKey       the row's deterministic key (the same for the row on every step and retry)
     * @param label        the class, in [0, K)
     * @param weight       the row's weight, finite and ≥ 0 (1 without weights); 0 adds nothing
     * @param grad         {@link BertClassifierNetwork#parameterCount()} sums, added to
     * @return weight·CE of the row
     * @throws IllegalArgumentException naming the argument that does not fit (an id with its
     *                                  position, the label, the weight, the states' or gradient's length)
     */
    public double accumulate(int[] ids, float[] frozenStates, long rowKey, int label, double weight, double[] grad) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /**
     * The K raw logits of one row, in eval mode (no dropout, whatever the binding).
     *
     * @param ids          as {@link #accumulate}
     * @param frozenStates as {@link #accumulate}
     * @param logitsOut    K values, written
     * @throws IllegalArgumentException as {@link #accumulate}, or when logitsOut is not K long
     */
    public void logits(int[] ids, float[] frozenStates, float[] logitsOut) {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
