package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

import java.util.Locale;

/**
 * {@link BertEncoderModel}'s own params ({@link BertEncoderParamSet}): the optional outputs, the
 * pooling and the batches, one accessor per param named like it, setters returning the model.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface BertEncoderParams<T extends BertEncoderParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    BertEncoderParamSet encoderParamSet();

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /** @return the last hidden state's column param (default empty: none) */
    default Param<String> statesCol() {
        return encoderParamSet().statesCol;
    }

    /** @return the last hidden state's column, or empty */
    default String getStatesCol() {
        return getOrDefault(statesCol());
    }

    /**
     * @param value the last hidden state's column (L×E), or empty for none
     * @return this stage
     */
    default T setStatesCol(String value) {
        set(statesCol(), value);
        return me();
    }

    /** @return the states layout param (default {@code nested}) */
    default Param<String> statesLayout() {
        return encoderParamSet().statesLayout;
    }

    /** @return {@code nested} or {@code flat} */
    default String getStatesLayout() {
        return getOrDefault(statesLayout());
    }

    /**
     * @param value {@code nested} or {@code flat}
     * @return this stage
     */
    default T setStatesLayout(String value) {
        set(statesLayout(), value);
        return me();
    }

    /** @return the attention column param (default empty: none) */
    default Param<String> attentionCol() {
        return encoderParamSet().attentionCol;
    }

    /** @return the attention column, or empty */
    default String getAttentionCol() {
        return getOrDefault(attentionCol());
    }

    /**
     * @param value the column of one layer's per-head attention (H×L×L), or empty for none
     * @return this stage
     */
    default T setAttentionCol(String value) {
        set(attentionCol(), value);
        return me();
    }

    /** @return the param of the layer the attention column shows (default 0) */
    default IntParam attentionLayer() {
        return encoderParamSet().attentionLayer;
    }

    /** @return the layer the attention column shows */
    default int getAttentionLayer() {
        return (Integer) getOrDefault(attentionLayer());
    }

    /**
     * @param value the layer the attention column shows, in [0, layers)
     * @return this stage
     */
    default T setAttentionLayer(int value) {
        set(attentionLayer(), value);
        return me();
    }

    /** @return the pooling param (default {@code mean}) */
    default Param<String> pooling() {
        return encoderParamSet().pooling;
    }

    /** @return {@code mean}, {@code cls} or {@code max} */
    default String getPooling() {
        return getOrDefault(pooling());
    }

    /**
     * @param value {@code mean}, {@code cls} or {@code max} (any case)
     * @return this stage
     */
    default T setPooling(String value) {
        set(pooling(), value == null ? null : value.toLowerCase(Locale.ROOT));
        return me();
    }

    /** @return the normalise param (default true) */
    default BooleanParam normalize() {
        return encoderParamSet().normalize;
    }

    /** @return whether the embedding is L2-normalised */
    default boolean getNormalize() {
        return (Boolean) getOrDefault(normalize());
    }

    /**
     * @param value whether to L2-normalise the embedding
     * @return this stage
     */
    default T setNormalize(boolean value) {
        set(normalize(), value);
        return me();
    }

    /** @return the batch rows param (default {@value EncoderBatches#DEFAULT_BATCH_ROWS}) */
    default IntParam batchRows() {
        return encoderParamSet().batchRows;
    }

    /** @return the most rows encoded together */
    default int getBatchRows() {
        return (Integer) getOrDefault(batchRows());
    }

    /**
     * @param value the most rows of a task encoded together by one stacked forward, at least 1
     * @return this stage
     */
    default T setBatchRows(int value) {
        set(batchRows(), value);
        return me();
    }

    /** @return the batch tokens param (default {@value EncoderBatches#DEFAULT_BATCH_TOKENS}) */
    default IntParam batchTokens() {
        return encoderParamSet().batchTokens;
    }

    /** @return the most tokens encoded together */
    default int getBatchTokens() {
        return (Integer) getOrDefault(batchTokens());
    }

    /**
     * @param value the most tokens of a task encoded together by one stacked forward, at least 1
     * @return this stage
     */
    default T setBatchTokens(int value) {
        set(batchTokens(), value);
        return me();
    }
}
