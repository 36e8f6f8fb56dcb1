package io.sparkattention.ml.classification;

import java.io.Serializable;

/**
 * One decoded training row: the row's first {@code length} tokens (row-major
 * {@code length×E} floats), its class and its weight — or, when the row is unusable, the problem,
 * so that validation reports it on the driver before any step runs.
 */
final class TrainingRow implements Serializable {

    private static final long serialVersionUID = 1L;

    /** length×E, row-major; null when {@link #problem} is set. */
    final float[] x;
    final int length;
    final int label;
    final double weight;
    /** What is wrong with the row (without the row's position), or null. */
    final String problem;

    private TrainingRow(float[] x, int length, int label, double weight, String problem) {
        this.x = x;
        this.length = length;
        this.label = label;
        this.weight = weight;
        this.problem = problem;
    }

    static TrainingRow valid(float[] x, int length, int label, double weight) {
        return new TrainingRow(x, length, label, weight, null);
    }

    static TrainingRow invalid(String problem) {
        return new TrainingRow(null, 0, -1, 0, problem);
    }

    /** The embedding width E. */
    int width() {
        return x.length / length;
    }
}
