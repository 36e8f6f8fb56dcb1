package io.sparkattention.bert;

import java.io.Serializable;

/**
 * One training row of a {@link BertClassifierNetwork}, the row type of its
 * {@link io.sparkattention.nn.TrainableNetwork}: token ids, the frozen prefix's states when they
 * are cached, the class, the weight and the key. Spark-free; checked where it is used
 * ({@link BertClassifierEvaluator#add(java.util.List)} names a row that does not fit by its key).
 * Equality is a record's over array references.
 *
 * @param ids          the row's token ids ([CLS] … [SEP] in place), 1 ≤ L ≤ maxPositions, each in [0, vocab)
 * @param frozenStates the row's {@link BertClassifierNetwork#frozenStates} (L×E row-major), or
 *                     null to compute them when used; null when the embeddings train
 * @param label        the class, in [0, K)
 * @param weight       the row's weight (1 without weights), finite and ≥ 0; 0 adds nothing
 * @param key          the row's deterministic key (its position in the training data, from 0),
 *                     the same on every step and retry: what dropout is keyed by
 */
public record BertClassifierRow(int[] ids, float[] frozenStates, int label, double weight, long key)
    implements Serializable {

    /** A row without cached states (the evaluator computes them when the network has a frozen prefix). */
    public static BertClassifierRow of(int[] ids, int label, double weight, long key) {
        return new BertClassifierRow(ids, null, label, weight, key);
    }

    /** This row with the frozen prefix's states {@code states} (L×E), e.g. from {@link BertClassifierNetwork#frozenStates(int[][])}. */
    public BertClassifierRow withFrozenStates(float[] states) {
        return new BertClassifierRow(ids, states, label, weight, key);
    }

    /** L, the row's tokens. */
    public int length() {
        return ids.length;
    }
}
