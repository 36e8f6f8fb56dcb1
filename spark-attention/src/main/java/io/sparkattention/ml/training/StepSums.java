package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientSums;

import java.io.Serializable;

/**
 * A leaf's, a group's or the whole sample's sums over its rows at one point of the parameters:
 * Σ weighted loss, Σ weight, the row count, the gradient sums (null for a loss-only pass) and the
 * largest value count a leaf task's result carried ({@link GradientSums#values()}).
 */
final class StepSums implements Serializable {

    private static final long serialVersionUID = 2L;

    double loss;
    double weight;
    long rows;
    final GradientSums grad;
    long largestTaskValues;

    StepSums(GradientSums grad) {
        this.grad = grad;
    }

    /** Adds {@code other}'s sums into these (the gradients by {@link GradientSums#add}) and returns this. */
    StepSums add(StepSums other) {
        loss += other.loss;
        weight += other.weight;
        rows += other.rows;
        if (grad != null) {
            grad.add(other.grad);
        }
        largestTaskValues = Math.max(largestTaskValues, other.largestTaskValues);
        return this;
    }

    /** The weighted mean loss Σ loss / Σ weight. */
    double meanLoss() {
        return loss / weight;
    }

    /** The weighted mean gradient Σ gradient / Σ weight as a flat vector, into {@code mean} (all written). */
    double[] meanGrad(double[] mean) {
        grad.toFlat(mean);
        for (int i = 0; i < mean.length; i++) {
            mean[i] /= weight;
        }
        return mean;
    }
}
