package io.sparkattention.ml.classification;

import java.io.Serializable;
import java.util.List;

/**
 * One partition's (or the whole sample's) sums over its rows at one point of the parameters:
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

    /**
     * The partitions' sums added in list order (partition order, as {@code collect} returns
     * them), never in task completion order, so the same inputs give the same bits.
     */
    static StepSums inOrder(List<StepSums> partitions) {
        StepSums total = new StepSums(partitions.isEmpty() || partitions.get(0).grad == null ? null
            : new double[partitions.get(0).grad.length]);
        for (StepSums p : partitions) {
            total.loss += p.loss;
            total.weight += p.weight;
            total.rows += p.rows;
            if (total.grad != null) {
                for (int i = 0; i < total.grad.length; i++) {
                    total.grad[i] += p.grad[i];
                }
            }
        }
        return total;
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
