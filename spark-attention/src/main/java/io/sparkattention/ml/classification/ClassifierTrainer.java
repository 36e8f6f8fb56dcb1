package io.sparkattention.ml.classification;

import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Optimizer;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;

/**
 * The training loop of {@link AttentionClassifier#fit}, data-parallel as MLlib's
 * {@code MultilayerPerceptronClassifier}: each step broadcasts the flat parameters, runs one
 * {@link StepJob} whose sums are added in a fixed partition order, and applies the optimiser
 * on the driver. The same seed, data and partitioning give a bit-identical model.
 */
final class ClassifierTrainer {

    private static final Logger LOG = LoggerFactory.getLogger(ClassifierTrainer.class);

    /** Progress is logged at INFO every this many steps (and at the first and last). */
    static final int LOG_EVERY = 10;
    /** PyTorch's Adam defaults (betas and eps), which the reference fixtures use. */
    static final double ADAM_BETA1 = 0.9, ADAM_BETA2 = 0.999, ADAM_EPS = 1e-8;

    private final JavaSparkContext sc;
    private final String solver;
    private final int maxIter;
    private final double stepSize;
    private final double weightDecay;
    private final double miniBatchFraction;
    private final double tol;
    private final long seed;
    private final TrainingListener listener;

    ClassifierTrainer(JavaSparkContext sc, String solver, int maxIter, double stepSize, double weightDecay,
                      double miniBatchFraction, double tol, long seed, TrainingListener listener) {
        this.sc = sc;
        this.solver = solver;
        this.maxIter = maxIter;
        this.stepSize = stepSize;
        this.weightDecay = weightDecay;
        this.miniBatchFraction = miniBatchFraction;
        this.tol = tol;
        this.seed = seed;
        this.listener = listener;
    }

    /** The optimiser the params name: Adam (AdamW when weightDecay &gt; 0) or gradient descent. */
    Optimizer optimizer() {
        return "gd".equals(solver) ? Optimizer.gradientDescent(stepSize)
            : Optimizer.adam(stepSize, ADAM_BETA1, ADAM_BETA2, ADAM_EPS, weightDecay);
    }

    /**
     * Trains {@code theta} in place, telling the listener (if any) each full-batch loss as it is known.
     *
     * @return the objective history and step count (see {@link AttentionClassifierSummary})
     */
    AttentionClassifierSummary train(TrainingData data, ClassifierArchitecture shape, float[] theta) {
        AttentionClassifierNetwork network = shape.network();
        Optimizer optimizer = optimizer();
        double[] history = new double[maxIter + 1];
        int steps = 0;
        boolean converged = false;
        for (; steps < maxIter; steps++) {
            StepSums sums = gradientAt(data, network, theta, steps);
            double loss = sums.meanLoss();
            history[steps] = loss;
            if (listener != null) {
                listener.onLoss(steps, miniBatchFraction < 1 ? lossAt(data, network, theta, shape.numClasses) : loss);
            }
            if (steps > 0 && tol > 0 && relativeChange(history[steps - 1], loss) < tol) {
                LOG.info("AttentionClassifier converged before step {}: loss {} changed by less than tol {}", steps,
                    loss, tol);
                converged = true;
                break;
            }
            optimizer.step(theta, sums.meanGrad());
            if (steps % LOG_EVERY == 0 || steps == maxIter - 1) {
                LOG.info("AttentionClassifier step {}/{}: loss {} over {} rows", steps + 1, maxIter, loss, sums.rows);
            }
        }
        if (!converged) {
            history[steps] = lossAt(data, network, theta, shape.numClasses);
            if (listener != null) {
                listener.onLoss(steps, history[steps]);
            }
            LOG.info("AttentionClassifier trained {} steps: final loss {}", steps, history[steps]);
        }
        return new AttentionClassifierSummary(Arrays.copyOf(history, steps + 1), steps);
    }

    /** The step's sums; a sample that drew no row (or only zero weights) falls back to every row. */
    private StepSums gradientAt(TrainingData data, AttentionClassifierNetwork network, float[] theta, int step) {
        Broadcast<float[]> shipped = sc.broadcast(theta.clone());
        try {
            StepSums sums = StepJob.gradient(data.rows, network, shipped, miniBatchFraction, seed, step);
            if (!(sums.weight > 0)) {
                LOG.warn("AttentionClassifier step {}: the mini-batch sample has no weight; using every row", step);
                sums = StepJob.gradient(data.rows, network, shipped, 1.0, seed, step);
            }
            return sums;
        } finally {
            shipped.destroy();
        }
    }

    private double lossAt(TrainingData data, AttentionClassifierNetwork network, float[] theta, int numClasses) {
        Broadcast<float[]> shipped = sc.broadcast(theta.clone());
        try {
            return StepJob.loss(data.rows, network, shipped, numClasses).meanLoss();
        } finally {
            shipped.destroy();
        }
    }

    /** |current − previous| / |previous| (an absolute change when the previous loss is 0). */
    static double relativeChange(double previous, double current) {
        double change = Math.abs(current - previous);
        return previous == 0 ? change : change / Math.abs(previous);
    }
}
