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
 * {@link StepJob} whose sums are added in a fixed order, and applies the optimiser on the
 * driver. The leaf tasks of every step's tree ({@code leaves}) are fixed when the fit starts, so
 * the same seed, data, partitioning and leaves give a bit-identical model, whatever the
 * scheduling or lost executors.
 */
final class ClassifierTrainer {

    private static final Logger LOG = LoggerFactory.getLogger(ClassifierTrainer.class);

    /** Progress is logged at INFO every this many steps (and at the first and last). */
    static final int LOG_EVERY = 10;
    /**
     * The steps over which {@code tol} measures progress, and the fewest steps a run with
     * {@code tol} takes: Adam's first steps from PyTorch's initialisation move every weight by
     * about stepSize whatever the gradient, and the loss can stay near ln K for a few of them,
     * so two neighbouring steps tell a flat start from convergence no better than a guess.
     */
    static final int TOL_WINDOW = 10;
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
    private final int leaves;
    private final TrainingListener listener;

    /**
     * @param leaves the leaf tasks' bound of every step's {@link io.sparkattention.exec.FixedOrderAggregate}
     *               tree, read once at the fit's start
     */
    ClassifierTrainer(JavaSparkContext sc, int leaves, String solver, int maxIter, double stepSize, double weightDecay,
                      double miniBatchFraction, double tol, long seed, TrainingListener listener) {
        this.sc = sc;
        this.solver = solver;
        this.maxIter = maxIter;
        this.stepSize = stepSize;
        this.weightDecay = weightDecay;
        this.miniBatchFraction = miniBatchFraction;
        this.tol = tol;
        this.seed = seed;
        this.leaves = leaves;
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
     * @return the objective history (see {@link AttentionClassifierSummary#objectiveHistory()}):
     *     the steps taken + 1 entries
     */
    double[] train(TrainingData data, ClassifierArchitecture shape, float[] theta) {
        AttentionClassifierNetwork network = shape.network();
        Optimizer optimizer = optimizer();
        boolean sampled = miniBatchFraction < 1;
        double[] history = new double[maxIter + 1];
        double[] fullBatch = new double[maxIter + 1];
        int steps = 0;
        for (; steps < maxIter; steps++) {
            StepSums sums = gradientAt(data, network, theta, steps);
            history[steps] = sums.meanLoss();
            fullBatch[steps] = sampled && (listener != null || tol > 0)
                ? lossAt(data, network, theta, shape.numClasses) : history[steps];
            if (listener != null) {
                listener.onLoss(steps, fullBatch[steps]);
            }
            if (converged(fullBatch, steps)) {
                LOG.info("AttentionClassifier converged before step {}: loss {} improved by less than tol {} "
                    + "(relative) over the last {} steps", steps, fullBatch[steps], tol, TOL_WINDOW);
                history[steps] = fullBatch[steps];
                return Arrays.copyOf(history, steps + 1);
            }
            optimizer.step(theta, sums.meanGrad());
            if (steps % LOG_EVERY == 0 || steps == maxIter - 1) {
                LOG.info("AttentionClassifier step {}/{}: loss {} over {} rows", steps + 1, maxIter, history[steps],
                    sums.rows);
            }
        }
        history[steps] = lossAt(data, network, theta, shape.numClasses);
        if (listener != null) {
            listener.onLoss(steps, history[steps]);
        }
        LOG.info("AttentionClassifier trained {} steps: final loss {}", steps, history[steps]);
        return Arrays.copyOf(history, steps + 1);
    }

    /**
     * The tol criterion before step i: once {@link #TOL_WINDOW} steps are taken, whether the
     * full-batch loss improved by less than tol, relative, over the last {@link #TOL_WINDOW} steps.
     */
    private boolean converged(double[] fullBatch, int step) {
        return tol > 0 && step >= TOL_WINDOW
            && relativeImprovement(fullBatch[step - TOL_WINDOW], fullBatch[step]) < tol;
    }

    /** The step's sums; a sample that drew no row (or only zero weights) falls back to every row. */
    private StepSums gradientAt(TrainingData data, AttentionClassifierNetwork network, float[] theta, int step) {
        Broadcast<float[]> shipped = sc.broadcast(theta.clone());
        try {
            StepSums sums = StepJob.gradient(data.rows, leaves, network, shipped, miniBatchFraction, seed, step);
            if (!(sums.weight > 0)) {
                LOG.warn("AttentionClassifier step {}: the mini-batch sample has no weight; using every row", step);
                sums = StepJob.gradient(data.rows, leaves, network, shipped, 1.0, seed, step);
            }
            return sums;
        } finally {
            shipped.destroy();
        }
    }

    private double lossAt(TrainingData data, AttentionClassifierNetwork network, float[] theta, int numClasses) {
        Broadcast<float[]> shipped = sc.broadcast(theta.clone());
        try {
            return StepJob.loss(data.rows, leaves, network, shipped, numClasses).meanLoss();
        } finally {
            shipped.destroy();
        }
    }

    /** (earlier − current) / |earlier|: how much the loss fell, relative (negative when it rose; absolute from 0). */
    static double relativeImprovement(double earlier, double current) {
        double fall = earlier - current;
        return earlier == 0 ? fall : fall / Math.abs(earlier);
    }
}
