package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The columns an attention stage reads beside its output ({@link OutputColParams}): query, key
 * and value, the key padding lengths, a boolean mask and an additive bias, with one accessor per
 * param named like it and setters that return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionColumnParams<T extends AttentionColumnParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    AttentionParamSet attentionParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Query column (default {@code query}): array&lt;array&lt;float|double&gt;&gt; or array&lt;vector&gt;.
     *
     * @return the param
     */
    default Param<String> queryCol() {
        return attentionParamSet().queryCol;
    }

    /** @return the value of {@link #queryCol()} (or its default) */
    default String getQueryCol() {
        return getOrDefault(queryCol());
    }

    /**
     * Sets {@link #queryCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setQueryCol(String value) {
        set(queryCol(), value);
        return self();
    }

    /**
     * Key column; empty (default) means the query column: self-attention.
     *
     * @return the param
     */
    default Param<String> keyCol() {
        return attentionParamSet().keyCol;
    }

    /** @return the value of {@link #keyCol()} (or its default) */
    default String getKeyCol() {
        return getOrDefault(keyCol());
    }

    /**
     * Sets {@link #keyCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setKeyCol(String value) {
        set(keyCol(), value);
        return self();
    }

    /**
     * Value column; empty (default) means the key column.
     *
     * @return the param
     */
    default Param<String> valueCol() {
        return attentionParamSet().valueCol;
    }

    /** @return the value of {@link #valueCol()} (or its default) */
    default String getValueCol() {
        return getOrDefault(valueCol());
    }

    /**
     * Sets {@link #valueCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setValueCol(String value) {
        set(valueCol(), value);
        return self();
    }

    /**
     * Integer column of valid key counts (key padding); empty (default): none.
     *
     * @return the param
     */
    default Param<String> keyLengthCol() {
        return attentionParamSet().keyLengthCol;
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
     * Boolean mask column (L×S or H×L×S, true = may attend); empty (default): none.
     *
     * @return the param
     */
    default Param<String> attnMaskCol() {
        return attentionParamSet().attnMaskCol;
    }

    /** @return the value of {@link #attnMaskCol()} (or its default) */
    default String getAttnMaskCol() {
        return getOrDefault(attnMaskCol());
    }

    /**
     * Sets {@link #attnMaskCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setAttnMaskCol(String value) {
        set(attnMaskCol(), value);
        return self();
    }

    /**
     * Additive bias column (L×S or H×L×S); empty (default): none.
     *
     * @return the param
     */
    default Param<String> attnBiasCol() {
        return attentionParamSet().attnBiasCol;
    }

    /** @return the value of {@link #attnBiasCol()} (or its default) */
    default String getAttnBiasCol() {
        return getOrDefault(attnBiasCol());
    }

    /**
     * Sets {@link #attnBiasCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setAttnBiasCol(String value) {
        set(attnBiasCol(), value);
        return self();
    }

    /**
     * The key column actually read (the query column when unset).
     *
     * @return the key column name
     */
    default String effectiveKeyCol() {
        return getKeyCol().isEmpty() ? getQueryCol() : getKeyCol();
    }

    /**
     * The value column actually read (the key column when unset).
     *
     * @return the value column name
     */
    default String effectiveValueCol() {
        return getValueCol().isEmpty() ? effectiveKeyCol() : getValueCol();
    }
}
