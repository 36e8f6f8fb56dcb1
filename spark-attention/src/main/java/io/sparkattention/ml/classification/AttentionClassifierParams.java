package io.sparkattention.ml.classification;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The params {@link AttentionClassifier} and {@link AttentionClassificationModel} add to MLlib's
 * probabilistic classifier params: the row weight and key length columns, the network's shape
 * ({@code numHeads}, {@code causal}, {@code residual}, {@code pooling}) and the optimiser's
 * settings. One accessor per param named like it; setters return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionClassifierParams<T extends AttentionClassifierParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    ClassifierParamSet classifierParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Row weight column (numeric, finite, >= 0); empty (default): every row weighs 1.
     *
     * @return the param
     */
    default Param<String> weightCol() {
        return classifierParamSet().weightCol;
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
     * Integer column of valid tokens per row; tokens at positions >= its value are ignored. Empty
     * (default): every token is valid, also when the input has a {@code key_length} column — the
     * command line's {@code train} picks that column up by itself, the API does not; fit and
     * transform log the column used at INFO.
     *
     * @return the param
     */
    default Param<String> keyLengthCol() {
        return classifierParamSet().keyLengthCol;
    }

    /** @return the value of {@link #keyLengthCol()} (or its default) */
    default String getKeyLengthCol() {
        return getOrDefault(keyLengthCol());
    }

    /**
     * Sets {@link #keyLengthCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setKeyLengthCol(String value) {
        set(keyLengthCol(), value);
        return self();
    }

    /**
     * Number of attention heads (default 1); must divide the embedding width E.
     *
     * @return the param
     */
    default IntParam numHeads() {
        return classifierParamSet().numHeads;
    }

    /** @return the value of {@link #numHeads()} (or its default) */
    default int getNumHeads() {
        return (Integer) getOrDefault(numHeads());
    }

    /**
     * Sets {@link #numHeads()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNumHeads(int value) {
        set(numHeads(), value);
        return self();
    }

    /**
     * Token i attends to tokens j &lt;= i only (default false).
     *
     * @return the param
     */
    default BooleanParam causal() {
        return classifierParamSet().causal;
    }

    /** @return the value of {@link #causal()} (or its default) */
    default boolean getCausal() {
        return (Boolean) getOrDefault(causal());
    }

    /**
     * Sets {@link #causal()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setCausal(boolean value) {
        set(causal(), value);
        return self();
    }

    /**
     * Pool {@code x + attention(x)} (default true) or {@code attention(x)} alone.
     *
     * @return the param
     */
    default BooleanParam residual() {
        return classifierParamSet().residual;
    }

    /** @return the value of {@link #residual()} (or its default) */
    default boolean getResidual() {
        return (Boolean) getOrDefault(residual());
    }

    /**
     * Sets {@link #residual()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setResidual(boolean value) {
        set(residual(), value);
        return self();
    }

    /**
     * Pooling of a row's tokens: {@code mean} (default, over valid tokens), {@code first} or {@code last} (valid token).
     *
     * @return the param
     */
    default Param<String> pooling() {
        return classifierParamSet().pooling;
    }

    /** @return the value of {@link #pooling()} (or its default) */
    default String getPooling() {
        return getOrDefault(pooling());
    }

    /**
     * Sets {@link #pooling()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setPooling(String value) {
        set(pooling(), value);
        return self();
    }

    /**
     * Optimiser: {@code adam} (default; AdamW when weightDecay &gt; 0) or {@code gd}.
     *
     * @return the param
     */
    default Param<String> solver() {
        return classifierParamSet().solver;
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
     * Number of optimiser steps (default 100).
     *
     * @return the param
     */
    default IntParam maxIter() {
        return classifierParamSet().maxIter;
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
     * Learning rate (default 0.001).
     *
     * @return the param
     */
    default DoubleParam stepSize() {
        return classifierParamSet().stepSize;
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
     * AdamW's decoupled weight decay (default 0: plain Adam); adam only.
     *
     * @return the param
     */
    default DoubleParam weightDecay() {
        return classifierParamSet().weightDecay;
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
     * Fraction of rows sampled for each step, in (0, 1] (default 1: full batch).
     *
     * @return the param
     */
    default DoubleParam miniBatchFraction() {
        return classifierParamSet().miniBatchFraction;
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
     * Early stopping (default 0: run maxIter steps). Before each step i &gt;= 10, training stops
     * when the full-batch loss l (the weighted mean cross-entropy over every row) improved by less
     * than tol, relative, over the last 10 steps: {@code (l(i-10) - l(i)) / |l(i-10)| < tol}. Step i
     * is not taken and l(i), at the final weights, ends the objective history. Measuring over 10
     * steps keeps Adam's flat first steps (the loss near ln K) from stopping a run. With
     * {@code miniBatchFraction} &lt; 1 each step then costs one more pass over the rows for l.
     *
     * @return the param
     */
    default DoubleParam tol() {
        return classifierParamSet().tol;
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
     * Seed of the initial weights and of the mini-batch sampling (default: the class name's hash).
     *
     * @return the param
     */
    default LongParam seed() {
        return classifierParamSet().seed;
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
     * Safetensors state_dict of the reference module to start from; empty (default): PyTorch's initialisation from seed.
     *
     * @return the param
     */
    default Param<String> initialWeightsPath() {
        return classifierParamSet().initialWeightsPath;
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
