package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;

/**
 * The training loop of {@link BertClassifier#fit}, as Hugging Face's {@code Trainer} steps: each
 * step broadcasts the trainable parameters, runs one {@link BertStepJob} whose sums are added in a
 * fixed order, and on the driver takes the mean gradient, clips its global norm
 * ({@code clip_grad_norm_}) and applies AdamW (Hugging Face's decay groups) or Adam at the linear
 * warmup schedule's learning rate. The leaf tasks of every step's tree ({@code leaves}) are fixed
 * when the fit starts, so the same seed, data, params, {@code numPartitions} and leaves give a
 * bit-identical model, whatever the input's partitioning, the scheduling or lost executors.
 */
final class BertTrainer {

    private static final Logger LOG = LoggerFactory.getLogger(BertTrainer.class);

    /** Progress is logged at INFO every this many steps (and at the first and last). */
    static final int LOG_EVERY = 10;
    /** The steps over which {@code tol} measures progress, and the fewest steps a run with {@code tol} takes. */
    static final int TOL_WINDOW = 10;

    private final JavaSparkContext sc;
    private final int leaves;
    private final BertTrainingParams<?> params;
    private final TrainingListener listener;

    /**
     * @param leaves the leaf tasks' bound of every step's {@link io.sparkattention.exec.FixedOrderAggregate}
     *               tree, read once at the fit's start
     */
    BertTrainer(JavaSparkContext sc, int leaves, BertTrainingParams<?> params, TrainingListener listener) {
        this.sc = sc;
        this.leaves = leaves;
        this.params = params;
        this.listener = listener;
    }

    /** The optimiser the params name, over the network's trainable tensors. */
    Optimizer optimizer(BertClassifierNetwork network) {
        return "adam".equals(params.getSolver()) ? Optimizer.adam(params.getStepSize(), 0.0)
            : Optimizer.adamW(params.getStepSize(), params.getWeightDecay(), network.parameters());
    }

    /**
     * Trains {@code theta} (the network's trainable vector) in place.
     *
     * @return the objective history: each step's loss over its sample (dropout on) before the
     *     step, then the loss over every row at the final parameters (eval mode)
     */
    double[] train(JavaRDD<BertTrainingRow> rows, BertClassifierNetwork network,
                   Broadcast<Shipped<BertClassifierNetwork>> shipped, float[] theta) {
        int maxIter = params.getMaxIter();
        Optimizer optimizer = optimizer(network);
        LearningRateSchedule schedule = LearningRateSchedule.linearWarmup(params.getWarmupSteps(), maxIter);
        double[] history = new double[maxIter + 1];
        int steps = 0;
        for (; steps < maxIter; steps++) {
            StepSums sums = gradientAt(rows, network, shipped, theta, steps);
            history[steps] = sums.meanLoss();
            // Convergence is checked before the listener hears step i: a stopped run's entry i is the
            // final eval loss below, reported once.
            if (converged(history, steps)) {
                LOG.info("BertClassifier converged before step {}: the step loss improved by less than tol {} "
                    + "(relative) over the last {} steps", steps, params.getTol(), TOL_WINDOW);
                break;
            }
            if (listener != null) {
                listener.onLoss(steps, history[steps]);
            }
            double[] grad = sums.meanGrad();
            if (params.getMaxGradNorm() > 0) {
                GradientClipping.clipByGlobalNorm(grad, params.getMaxGradNorm());
            }
            optimizer.step(theta, grad, schedule.factor(steps));
            if (steps % LOG_EVERY == 0 || steps == maxIter - 1) {
                LOG.info("BertClassifier step {}/{}: loss {} over {} rows", steps + 1, maxIter, history[steps],
                    sums.rows);
            }
        }
        Broadcast<float[]> at = sc.broadcast(theta.clone());
        try {
            history[steps] = BertStepJob.loss(rows, leaves, shipped, at).meanLoss();
        } finally {
            at.destroy();
        }
        if (listener != null) {
            listener.onLoss(steps, history[steps]);
        }
        LOG.info("BertClassifier trained {} steps: final loss {}", steps, history[steps]);
        return Arrays.copyOf(history, steps + 1);
    }

    private boolean converged(double[] history, int step) {
        return params.getTol() > 0 && step >= TOL_WINDOW
            && ClassifierTrainer.relativeImprovement(history[step - TOL_WINDOW], history[step]) < params.getTol();
    }

    /** The step's sums; a sample that drew no row (or only zero weights) falls back to every row. */
    private StepSums gradientAt(JavaRDD<BertTrainingRow> rows, BertClassifierNetwork network,
                                Broadcast<Shipped<BertClassifierNetwork>> shipped, float[] theta, int step) {
        Broadcast<float[]> at = sc.broadcast(theta.clone());
        try {
            int count = network.parameterCount();
            StepSums sums = BertStepJob.gradient(rows, leaves, shipped, count, at, params.getMiniBatchFraction(),
                params.getSeed(), step);
            if (!(sums.weight > 0)) {
                LOG.warn("BertClassifier step {}: the mini-batch sample has no weight; using every row", step);
                sums = BertStepJob.gradient(rows, leaves, shipped, count, at, 1.0, params.getSeed(), step);
            }
            return sums;
        } finally {
            at.destroy();
        }
    }
}
