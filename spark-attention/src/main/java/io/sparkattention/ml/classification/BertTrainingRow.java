package io.sparkattention.ml.classification;

import io.sparkattention.bert.BertClassifierRow;

import java.io.Serializable;

/**
 * One decoded training row of a {@link BertClassifier} fit: its token ids, class and weight — or,
 * when the row is unusable, the problem, so that validation reports it on the driver before any
 * step runs. {@link #laidOut} makes the network's row of it.
 */
final class BertTrainingRow implements Serializable {

    private static final long serialVersionUID = 1L;

    final int[] ids;
    final int label;
    final double weight;
    /** What is wrong with the row (without the row's position), or null. */
    final String problem;

    private BertTrainingRow(int[] ids, int label, double weight, String problem) {
        this.ids = ids;
        this.label = label;
        this.weight = weight;
        this.problem = problem;
    }

    static BertTrainingRow valid(int[] ids, int label, double weight) {
        return new BertTrainingRow(ids, label, weight, null);
    }

    static BertTrainingRow invalid(String problem) {
        return new BertTrainingRow(null, -1, 0, problem);
    }

    /** This row as the network trains on it: at input position {@code key}, with the frozen prefix's states (or null). */
    BertClassifierRow laidOut(long key, float[] frozen) {
        return new BertClassifierRow(ids, frozen, label, weight, key);
    }
}
