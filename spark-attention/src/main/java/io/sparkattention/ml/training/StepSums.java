package io.sparkattention.ml.training;

import io.sparkattention.exec.Sliceable;
import io.sparkattention.nn.GradientSums;

import java.io.Serializable;

/**
 * A leaf's, a group's or the whole sample's sums over its rows at one point of the parameters:
 * Σ weighted loss, Σ weight, the row count, the gradient sums (null for a loss-only pass) and the
 * largest value count a leaf task's result carried ({@link GradientSums#values()}). Cut into
 * slices for the sliced merge, the scalars ride in slice 0 and the gradient sums are cut by
 * {@link GradientSums#slice}; slices past 0 carry zero scalars.
 */
final class StepSums implements Serializable, Sliceable<StepSums> {

    private static final long serialVersionUID = 3L;

    double loss;
    double weight;
    long rows;
    final GradientSums grad;
    long largestTaskValues;
    /**
     * Within a leaf task: the sampled rows not yet handed to the evaluator, carried from one
     * partition of the leaf's run to the next (null before the leaf's first partition and after its
     * last). Never shipped: the leaf's last partition empties it.
     */
    transient java.util.List<?> run;

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

    @Override
    public StepSums slice(int s, int count) {
        StepSums part = new StepSums(grad == null ? null : grad.slice(s, count));
        if (s == 0) {
            part.loss = loss;
            part.weight = weight;
            part.rows = rows;
            part.largestTaskValues = largestTaskValues;
        }
        return part;
    }

    @Override
    public StepSums addSlice(int s, int count, StepSums part) {
        if (s == 0) {
            loss += part.loss;
            weight += part.weight;
            rows += part.rows;
            largestTaskValues = Math.max(largestTaskValues, part.largestTaskValues);
        }
        if (grad != null) {
            grad.addSlice(s, count, part.grad);
        }
        return this;
    }

    /** The weighted mean loss Σ loss / Σ weight. */
    double meanLoss() {
        return loss / weight;
    }
}
