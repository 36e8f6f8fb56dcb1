package io.sparkattention.ml.training;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.ml.Shipped;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import io.sparkattention.nn.TrainableNetwork;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;

/**
 * The engine's training loop, data-parallel as MLlib's {@code MultilayerPerceptronClassifier} and
 * stepped as Hugging Face's {@code Trainer}: each step broadcasts the flat parameters (float32),
 * runs one {@link StepJob} over the step's sample whose sums are added in a fixed order, and on
 * the driver takes the mean gradient ({@link MeanGradient}, read from the sums a range at a
 * time), clips its global norm ({@code clip_grad_norm_}, when {@code maxGradNorm} &gt; 0) and
 * applies the optimiser at the schedule's learning rate ({@link TrainingSettings}). The leaf tasks of every step's tree are fixed when the fit starts, so
 * the same seed, data, params, layout and leaves give a bit-identical model, whatever the
 * scheduling or lost executors.
 *
 * <p>The one stopping rule: before step i &gt;= {@link #TOL_WINDOW}, a run with {@code tol} &gt; 0
 * stops when the step losses (the objective history) improved by less than tol, relative, over the
 * last {@link #TOL_WINDOW} steps. The history ends, after the last step taken, with the loss over
 * every row at the final weights in evaluation mode; the listener hears each entry as it is known.
 *
 * @param <R> the network's training row
 */
public final class Trainer<R> {

    private static final Logger LOG = LoggerFactory.getLogger(Trainer.class);

    /** Progress is logged at INFO every this many steps (and at the first and last). */
    static final int LOG_EVERY = 10;
    /**
     * The steps over which {@code tol} measures progress, and the fewest steps a run with
     * {@code tol} takes: Adam's first steps from PyTorch's initialisation move every weight by
     * about stepSize whatever the gradient, and the loss can stay near its start for a few of them,
     * so two neighbouring steps tell a flat start from convergence no better than a guess.
     */
    public static final int TOL_WINDOW = 10;

    private final String name;
    private final JavaSparkContext sc;
    private final TrainingSettings settings;
    private final TrainingListener listener;
    /** The learning rate's schedule when the family chooses one ({@link #withSchedule}); null: the settings'. */
    private LearningRateSchedule schedule;

    /**
     * @param name     the family's name in log lines
     * @param sc       the fit's Spark context
     * @param settings the fit's settings
     * @param listener hears the objective history as it is known, or null
     */
    public Trainer(String name, JavaSparkContext sc, TrainingSettings settings, TrainingListener listener) {
        this.name = name;
        this.sc = sc;
        this.settings = settings;
        this.listener = listener;
    }

    /**
     * Runs the fit at {@code schedule}'s learning rate factors instead of the settings' own (a
     * family with a choice of schedules, such as the language model's cosine decay).
     *
     * @return this trainer
     */
    public Trainer<R> withSchedule(LearningRateSchedule chosen) {
        this.schedule = java.util.Objects.requireNonNull(chosen, "schedule");
        return this;
    }

    /**
     * Trains {@code theta} (the network's flat vector) in place.
     *
     * @param rows    the training rows, cached or deterministic
     * @param slots   the cluster's task slots, read once when the fit starts: they fix every step's layout
     * @param network the network, shipped once for the fit (its driver-side value is read here too)
     * @param keys    the rows' keys (their positions in the training data)
     * @return the objective history: each step's loss over its sample before the step, then the
     *     loss over every row at the final weights (evaluation mode)
     */
    public double[] train(JavaRDD<R> rows, int slots,
                          Broadcast<? extends Shipped<? extends TrainableNetwork<R>>> network, RowKey<R> keys,
                          float[] theta) {
        TrainableNetwork<R> driverNetwork = network.value().get();
        StepJob<R> job = new StepJob<>(rows, FixedOrderAggregate.leaves(slots),
            FixedOrderAggregate.slices(slots), network,
            GradientLayout.of(driverNetwork), keys);
        int maxIter = settings.maxIter();
        Optimizer optimizer = settings.optimizer(driverNetwork.parameters());
        LearningRateSchedule schedule = this.schedule != null ? this.schedule : settings.schedule();
        double[] history = new double[maxIter + 1];
        int steps = 0;
        for (; steps < maxIter; steps++) {
            long[] nanos = new long[2];
            StepSums sums = gradientAt(job, theta, steps, nanos);
            history[steps] = sums.meanLoss();
            // Checked before the listener hears step i: a stopped run's entry i is the final loss below, heard once.
            if (converged(history, steps)) {
                LOG.info("{} converged before step {}: the step loss improved by less than tol {} (relative) over the "
                    + "last {} steps", name, steps, settings.tol(), TOL_WINDOW);
                break;
            }
            if (listener != null) {
                listener.onLoss(steps, history[steps]);
            }
            long update = System.nanoTime();
            // Read a range at a time from the sums: no flat float64 copy (for a fine-tuned encoder, 182 MB).
            MeanGradient grad = new MeanGradient(sums.grad, sums.weight);
            if (settings.maxGradNorm() > 0) {
                grad.clipByGlobalNorm(settings.maxGradNorm());
            }
            optimizer.step(theta, grad.length(), grad, schedule.factor(steps));
            if (listener != null) {
                listener.onStepTimes(new StepTimes(steps, nanos[0] / 1e6, nanos[1] / 1e6,
                    (System.nanoTime() - update) / 1e6, sums.largestTaskValues));
            }
            if (steps % LOG_EVERY == 0 || steps == maxIter - 1) {
                LOG.info("{} step {}/{}: loss {} over {} rows; a task result carried at most {} gradient values "
                    + "of {} parameters", name, steps + 1, maxIter, history[steps], sums.rows, sums.largestTaskValues,
                    theta.length);
            }
        }
        StepParameters finalTheta = parameters(theta);
        Broadcast<StepParameters> at = sc.broadcast(finalTheta);
        try {
            history[steps] = job.loss(at).meanLoss();
        } finally {
            at.destroy();
            finalTheta.release();
        }
        if (listener != null) {
            listener.onLoss(steps, history[steps]);
        }
        LOG.info("{} trained {} steps: final loss {}", name, steps, history[steps]);
        return Arrays.copyOf(history, steps + 1);
    }

    /** θ as a step's broadcast carries it: by handle when every reader is in this JVM (local mode). */
    private StepParameters parameters(float[] theta) {
        return sc.isLocal() ? StepParameters.inThisJvm(theta) : new StepParameters(theta);
    }

    private boolean converged(double[] history, int step) {
        return settings.tol() > 0 && step >= TOL_WINDOW
            && relativeImprovement(history[step - TOL_WINDOW], history[step]) < settings.tol();
    }

    /** (earlier − current) / |earlier|: how much the loss fell, relative (negative when it rose; absolute from 0). */
    static double relativeImprovement(double earlier, double current) {
        double fall = earlier - current;
        return earlier == 0 ? fall : fall / Math.abs(earlier);
    }

    /**
     * The step's sums; a sample that drew no row (or only zero weights) falls back to every row.
     *
     * @param nanos receives the broadcast's time (made and destroyed) and the job's
     */
    private StepSums gradientAt(StepJob<R> job, float[] theta, int step, long[] nanos) {
        long start = System.nanoTime();
        // The vector itself, not a copy (for a fine-tuned MiniLM 90 MB less on the driver during the
        // job): the optimiser changes it only after the job has ended and the broadcast is destroyed,
        // and a task's evaluator, which keys on the array, is dropped when the task ends (StepEvaluators).
        StepParameters parameters = parameters(theta);
        Broadcast<StepParameters> at = sc.broadcast(parameters);
        long submitted = System.nanoTime();
        try {
            StepSums sums = job.gradient(at, settings.miniBatchFraction(), settings.seed(), step);
            if (!(sums.weight > 0)) {
                LOG.warn("{} step {}: the mini-batch sample has no weight; using every row", name, step);
                sums = job.gradient(at, 1.0, settings.seed(), step);
            }
            return sums;
        } finally {
            long done = System.nanoTime();
            at.destroy();
            parameters.release();
            nanos[0] = submitted - start + System.nanoTime() - done;
            nanos[1] = done - submitted;
        }
    }
}
