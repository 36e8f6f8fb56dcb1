package io.sparkattention.ml.training;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;

/**
 * The params a transformer's training adds to {@link TrainingParams}, as Hugging Face's
 * {@code Trainer} has them: the learning rate's warmup, gradient clipping and dropout. Their
 * {@link TrainingParamSet} is made for a {@link TrainingParamSet.Family} with a schedule.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface TransformerTrainingParams<T extends TransformerTrainingParams<T>> extends TrainingParams<T> {

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Steps of linear warmup from learning rate 0 (default 0), then linear decay to 0 at maxIter,
     * as Hugging Face's {@code get_linear_schedule_with_warmup}.
     *
     * @return the param
     */
    default IntParam warmupSteps() {
        return trainingParamSet().scheduled(trainingParamSet().warmupSteps, "warmupSteps");
    }

    /** @return the value of {@link #warmupSteps()} (or its default) */
    default int getWarmupSteps() {
        return (Integer) getOrDefault(warmupSteps());
    }

    /**
     * Sets {@link #warmupSteps()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWarmupSteps(int value) {
        set(warmupSteps(), value);
        return self();
    }

    /**
     * Clip the global gradient norm to this, as {@code clip_grad_norm_} (default 1); 0: no clipping.
     *
     * @return the param
     */
    default DoubleParam maxGradNorm() {
        return trainingParamSet().scheduled(trainingParamSet().maxGradNorm, "maxGradNorm");
    }

    /** @return the value of {@link #maxGradNorm()} (or its default) */
    default double getMaxGradNorm() {
        return (Double) getOrDefault(maxGradNorm());
    }

    /**
     * Sets {@link #maxGradNorm()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setMaxGradNorm(double value) {
        set(maxGradNorm(), value);
        return self();
    }

    /**
     * Dropout probability in the trainable layers and before the head (default 0.1, Hugging
     * Face's); masks are keyed by (seed, step, row), so no result depends on partitioning or
     * retries.
     *
     * @return the param
     */
    default DoubleParam dropout() {
        return trainingParamSet().scheduled(trainingParamSet().dropout, "dropout");
    }

    /** @return the value of {@link #dropout()} (or its default) */
    default double getDropout() {
        return (Double) getOrDefault(dropout());
    }

    /**
     * Sets {@link #dropout()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setDropout(double value) {
        set(dropout(), value);
        return self();
    }
}
