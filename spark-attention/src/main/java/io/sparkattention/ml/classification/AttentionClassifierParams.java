package io.sparkattention.ml.classification;

import io.sparkattention.ml.training.TrainingParamSet;
import io.sparkattention.ml.training.TrainingParams;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

/**
 * The params {@link AttentionClassifier} and {@link AttentionClassificationModel} add to MLlib's
 * probabilistic classifier params: the key length column and the network's shape
 * ({@code numHeads}, {@code causal}, {@code residual}, {@code pooling}), beside the training
 * engine's shared params ({@link TrainingParams}: the row weight, the solver {@code adam} or
 * {@code gd}, the steps, sampling, {@code tol}, seed and the reference module's state_dict to start
 * from). One accessor per param named like it; setters return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionClassifierParams<T extends AttentionClassifierParams<T>> extends TrainingParams<T> {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    ClassifierParamSet classifierParamSet();

    /**
     * The shared training params' objects, made with the family's own ({@link ClassifierParamSet#FAMILY}).
     *
     * @return the param objects, created with the stage
     */
    @Override
    default TrainingParamSet trainingParamSet() {
        return classifierParamSet().training;
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
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
     * Pooling of a row's tokens: {@code mean} (default, over valid tokens), {@code first} (also
     * read as {@code cls}, the fine-tuned classifier's name for it) or {@code last} (valid token).
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
}
