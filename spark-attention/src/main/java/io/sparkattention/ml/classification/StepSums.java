package io.sparkattention.ml.classification;

import java.io.Serializable;

/**
 * A group of partitions' (or the whole sample's) sums over its rows at one point of the parameters:
 * Σw·CE, Σw, the row count, and Σw·∂CE/∂θ (null for a loss-only pass).
 */
final class StepSums implements Serializable {

    private static final long serialVersionUID = 1L;

    double loss;
    double weight;
    long rows;
    double[] grad;

    StepSums(double[] grad) {
        this.grad = grad;
    }

    /** Adds {@code other}'s sums into these (the gradients element by element) and returns this. */
    StepSums add(StepSums other) {
        loss += other.loss;
        weight += other.weight;
        rows += other.rows;
        if (grad != null) {
            for (int i = 0; i < grad.length; i++) {
                grad[i] += other.grad[i];
            }
        }
        return this;
    }

    /** The weighted mean loss Σw·CE / Σw. */
    double meanLoss() {
        return loss / weight;
    }

    /** The weighted mean gradient Σw·∂CE/∂θ / Σw, in a new array. */
    double[] meanGrad() {
        double[] mean = new double[grad.length];
        for (int i = 0; i < mean.length; i++) {
            mean[i] = grad[i] / weight;
        }
        return mean;
    }
}
