package io.sparkattention.gpt;

import java.io.Serializable;

/**
 * One training sequence of a causal language model: its token ids (a packed block of
 * {@code blockSize} ids, or one row's ids when packing is off), its weight and its key (its
 * position in the training data, from 0: what sampling and dropout are keyed by). Every position
 * but the last predicts the next id, so a block of L ids has L − 1 predicted tokens.
 *
 * @param ids    the sequence, 1 ≤ L ≤ n_positions, each id in [0, vocab)
 * @param weight the sequence's weight (1 without weights), finite and ≥ 0
 * @param key    the sequence's deterministic key, the same on every step and retry
 */
public record TokenBlock(int[] ids, double weight, long key) implements Serializable {

    /** The tokens this sequence predicts: L − 1. */
    public int predictedTokens() {
        return ids.length - 1;
    }
}
