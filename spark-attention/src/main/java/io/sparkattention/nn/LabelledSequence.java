package io.sparkattention.nn;

import java.io.Serializable;

/**
 * One training row of an {@link AttentionClassifierNetwork}: a sequence of valid tokens, its class,
 * its weight and its key (its position in the training data, from 0: what the training engine
 * samples by).
 *
 * @param x      the tokens, {@code length}×E row-major (values past them are not read)
 * @param length n ≥ 1 valid tokens
 * @param label  the class, in [0, K)
 * @param weight the row's weight (1 without weights), finite and ≥ 0
 * @param key    the row's deterministic key, the same on every step and retry
 */
public record LabelledSequence(float[] x, int length, int label, double weight, long key) implements Serializable {
}
