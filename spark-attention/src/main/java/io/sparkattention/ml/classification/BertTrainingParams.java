package io.sparkattention.ml.classification;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The optimiser's params of {@link BertClassifier} (and its model, which records them): solver,
 * learning rate and its schedule, clipping, dropout, steps, sampling, seed and early stopping.
 * One accessor per param named like it; setters return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface BertTrainingParams<T extends BertTrainingParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    BertClassifierParamSet bertParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Optimiser: {@code adamw} (default; decoupled weight decay, none on biases and LayerNorm
     * weights) or {@code adam} (no decay).
     *
     * @return the param
     */
    default Param<String> solver() {
        return bertParamSet().solver;
    }

    /** @return the value of {@link #solver()} (or its default) */
    default String getSolver() {
        return getOrDefault(solver());
    }

    /**
     * Sets {@link #solver()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setSolver(String value) {
        set(solver(), value);
        return self();
    }

    /**
     * Peak learning rate (default 5e-5).
     *
     * @return the param
     */
    default DoubleParam stepSize() {
        return bertParamSet().stepSize;
    }

    /** @return the value of {@link #stepSize()} (or its default) */
    default double getStepSize() {
        return (Double) getOrDefault(stepSize());
    }

    /**
     * Sets {@link #stepSize()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setStepSize(double value) {
        set(stepSize(), value);
        return self();
    }

    /**
     * AdamW's decoupled weight decay (default 0); {@code adam} refuses a positive value.
     *
     * @return the param
     */
    default DoubleParam weightDecay() {
        return bertParamSet().weightDecay;
    }

    /** @return the value of {@link #weightDecay()} (or its default) */
    default double getWeightDecay() {
        return (Double) getOrDefault(weightDecay());
    }

    /**
     * Sets {@link #weightDecay()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWeightDecay(double value) {
        set(weightDecay(), value);
        return self();
    }

    /**
     * Steps of linear warmup from learning rate 0 (default 0), then linear decay to 0 at maxIter,
     * as Hugging Face's {@code get_linear_schedule_with_warmup}.
     *
     * @return the param
     */
    default IntParam warmupSteps() {
        return bertParamSet().warmupSteps;
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
        return bertParamSet().maxGradNorm;
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
        return bertParamSet().dropout;
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

    /**
     * Number of optimiser steps (default 100).
     *
     * @return the param
     */
    default IntParam maxIter() {
        return bertParamSet().maxIter;
    }

    /** @return the value of {@link #maxIter()} (or its default) */
    default int getMaxIter() {
        return (Integer) getOrDefault(maxIter());
    }

    /**
     * Sets {@link #maxIter()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setMaxIter(int value) {
        set(maxIter(), value);
        return self();
    }

    /**
     * Fraction of rows sampled for each step, in (0, 1] (default 1: full batch); a row is in step
     * t's sample by (seed, t, row) alone.
     *
     * @return the param
     */
    default DoubleParam miniBatchFraction() {
        return bertParamSet().miniBatchFraction;
    }

    /** @return the value of {@link #miniBatchFraction()} (or its default) */
    default double getMiniBatchFraction() {
        return (Double) getOrDefault(miniBatchFraction());
    }

    /**
     * Sets {@link #miniBatchFraction()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setMiniBatchFraction(double value) {
        set(miniBatchFraction(), value);
        return self();
    }

    /**
     * Seed of the head's initialisation, the sampling and the dropout masks (default: the class name's hash).
     *
     * @return the param
     */
    default LongParam seed() {
        return bertParamSet().seed;
    }

    /** @return the value of {@link #seed()} (or its default) */
    default long getSeed() {
        return (Long) getOrDefault(seed());
    }

    /**
     * Sets {@link #seed()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setSeed(long value) {
        set(seed(), value);
        return self();
    }

    /**
     * Early stopping (default 0: run maxIter steps): before step i &gt;= 10, stop when the step
     * losses improved by less than tol, relative, over the last 10 steps.
     *
     * @return the param
     */
    default DoubleParam tol() {
        return bertParamSet().tol;
    }

    /** @return the value of {@link #tol()} (or its default) */
    default double getTol() {
        return (Double) getOrDefault(tol());
    }

    /**
     * Sets {@link #tol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setTol(double value) {
        set(tol(), value);
        return self();
    }
}
