package io.sparkattention.ml.classification;

import java.io.Serializable;

/**
 * One training row of a {@link BertClassifier} fit: its token ids, the frozen prefix's states
 * (computed once, null before the layout or when everything trains), its class, weight and key
 * (its position in the input, from 0: what sampling and dropout are keyed by) — or, when the row
 * is unusable, the problem, so that validation reports it on the driver before any step runs.
 */
final class BertTrainingRow implements Serializable {

    private static final long serialVersionUID = 1L;

    final int[] ids;
    /** L×E row-major, or null. */
    final float[] frozen;
    final int label;
    final double weight;
    final long key;
    /** What is wrong with the row (without the row's position), or null. */
    final String problem;

    private BertTrainingRow(int[] ids, float[] frozen, int label, double weight, long key, String problem) {
        this.ids = ids;
        this.frozen = frozen;
        this.label = label;
        this.weight = weight;
        this.key = key;
        this.problem = problem;
    }

    static BertTrainingRow valid(int[] ids, int label, double weight) {
        return new BertTrainingRow(ids, null, label, weight, -1, null);
    }

    static BertTrainingRow invalid(String problem) {
        return new BertTrainingRow(null, null, -1, 0, -1, problem);
    }

    /** This row at input position {@code key}, with the frozen prefix's states (or null). */
    BertTrainingRow laidOut(long key, float[] frozen) {
        return new BertTrainingRow(ids, frozen, label, weight, key, null);
    }
}
