package io.sparkattention.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The attention stages' masks given by params rather than columns: the causal mask, its
 * alignment when queries and keys differ in length, and a sliding window around the aligned
 * diagonal, with one accessor per param named like it and setters that return the stage itself
 * ({@code T}). The masks given by columns are {@link AttentionColumnParams}'.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionMaskParams<T extends AttentionMaskParams<T>> extends Params {

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
     * Causal mask (default false).
     *
     * @return the param
     */
    default BooleanParam causal() {
        return attentionParamSet().causal;
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
     * {@code top_left} (default, PyTorch's is_causal) or {@code bottom_right}.
     *
     * @return the param
     */
    default Param<String> causalAlignment() {
        return attentionParamSet().causalAlignment;
    }

    /** @return the value of {@link #causalAlignment()} (or its default) */
    default String getCausalAlignment() {
        return getOrDefault(causalAlignment());
    }

    /**
     * Sets {@link #causalAlignment()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setCausalAlignment(String value) {
        set(causalAlignment(), value);
        return self();
    }

    /**
     * Sliding window: keys visible before the aligned diagonal; -1 (default) unbounded.
     *
     * @return the param
     */
    default IntParam windowLeft() {
        return attentionParamSet().windowLeft;
    }

    /** @return the value of {@link #windowLeft()} (or its default) */
    default int getWindowLeft() {
        return (Integer) getOrDefault(windowLeft());
    }

    /**
     * Sets {@link #windowLeft()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWindowLeft(int value) {
        set(windowLeft(), value);
        return self();
    }

    /**
     * Sliding window: keys visible after the aligned diagonal; -1 (default) unbounded.
     *
     * @return the param
     */
    default IntParam windowRight() {
        return attentionParamSet().windowRight;
    }

    /** @return the value of {@link #windowRight()} (or its default) */
    default int getWindowRight() {
        return (Integer) getOrDefault(windowRight());
    }

    /**
     * Sets {@link #windowRight()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWindowRight(int value) {
        set(windowRight(), value);
        return self();
    }
}
