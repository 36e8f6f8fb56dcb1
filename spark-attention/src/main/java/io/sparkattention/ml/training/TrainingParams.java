package io.sparkattention.ml.training;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The params every learning stage of the library shares, declared once: a family's params
 * interface extends this one (or {@link TransformerTrainingParams}) and its stages return their
 * {@link TrainingParamSet}. One accessor per param named like it; setters return the stage itself
 * ({@code T}). The engine reads them through {@link TrainingSettings#of}.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface TrainingParams<T extends TrainingParams<T>> extends Params {

    /**
     * The stage's shared Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    TrainingParamSet trainingParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Row weight column (numeric, finite, &gt;= 0); empty (default): every row weighs 1.
     *
     * @return the param
     */
    default Param<String> weightCol() {
        return trainingParamSet().weightCol;
    }

    /** @return the value of {@link #weightCol()} (or its default) */
    default String getWeightCol() {
        return getOrDefault(weightCol());
    }

    /**
     * Sets {@link #weightCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWeightCol(String value) {
        set(weightCol(), value);
        return self();
    }

    /**
     * The optimiser, among the family's solvers (see {@link TrainingSettings#optimizer}); the
     * default is the family's first.
     *
     * @return the param
     */
    default Param<String> solver() {
        return trainingParamSet().solver;
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
     * Learning rate (the schedule's peak where there is warmup); the default is the family's.
     *
     * @return the param
     */
    default DoubleParam stepSize() {
        return trainingParamSet().stepSize;
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
     * Decoupled weight decay (default 0), as the solver applies it.
     *
     * @return the param
     */
    default DoubleParam weightDecay() {
        return trainingParamSet().weightDecay;
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
     * Number of optimiser steps (default 100).
     *
     * @return the param
     */
    default IntParam maxIter() {
        return trainingParamSet().maxIter;
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
     * Fraction of rows sampled for each step, in (0, 1] (default 1: full batch); a row is in
     * step t's sample by (seed, t, row key) alone, whatever the partitioning.
     *
     * @return the param
     */
    default DoubleParam miniBatchFraction() {
        return trainingParamSet().miniBatchFraction;
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
     * Early stopping (default 0: run maxIter steps): before step i &gt;= 10, stop when the
     * step losses improved by less than tol, relative, over the last 10 steps:
     * {@code (l(i-10) - l(i)) / |l(i-10)| < tol}. Step i is not taken and the loss over every row
     * at the final weights ends the objective history. Measuring over 10 steps keeps Adam's flat
     * first steps from stopping a run.
     *
     * @return the param
     */
    default DoubleParam tol() {
        return trainingParamSet().tol;
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

    /**
     * Seed of the family's initialisation, the sampling and any dropout (default: the class name's hash).
     *
     * @return the param
     */
    default LongParam seed() {
        return trainingParamSet().seed;
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
     * Safetensors file of the weights to start from; empty (default): the family's initialisation from seed.
     *
     * @return the param
     */
    default Param<String> initialWeightsPath() {
        return trainingParamSet().initialWeightsPath;
    }

    /** @return the value of {@link #initialWeightsPath()} (or its default) */
    default String getInitialWeightsPath() {
        return getOrDefault(initialWeightsPath());
    }

    /**
     * Sets {@link #initialWeightsPath()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setInitialWeightsPath(String value) {
        set(initialWeightsPath(), value);
        return self();
    }
}
