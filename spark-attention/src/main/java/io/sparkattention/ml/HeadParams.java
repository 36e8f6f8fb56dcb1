package io.sparkattention.ml;

import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Params;

/**
 * How a stage splits a sequence's width into heads ({@link HeadParamSet}): query heads and, for
 * grouped-query attention, fewer key/value heads, with one accessor per param named like it and
 * setters that return the stage itself ({@code T}). Shared by the attention stages and rotary
 * encoding, which rotates each head's slice.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface HeadParams<T extends HeadParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    HeadParamSet headParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * Number of (query) heads (default 1); the width is split into this many heads.
     *
     * @return the param
     */
    default IntParam numHeads() {
        return headParamSet().numHeads;
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
     * Key/value heads for grouped-query attention; 0 (default) means {@code numHeads}. It must
     * divide {@code numHeads}: query head {@code h} uses key/value head
     * {@code h / (numHeads / numKvHeads)}, so each group of {@code numHeads / numKvHeads}
     * consecutive query heads shares one key/value head (PyTorch's {@code enable_gqa}, which
     * repeats each key/value head {@code numHeads / numKvHeads} times with
     * {@code repeat_interleave}). The key and value columns then hold
     * {@code numKvHeads · head_dim} values per row, head {@code g} in columns
     * {@code [g·head_dim, (g+1)·head_dim)}. Of the attention stages only
     * {@link ScaledDotProductAttention} takes grouped-query input; {@link MultiHeadAttention} and
     * {@link MultiHeadAttentionModel} hold PyTorch {@code nn.MultiheadAttention} weights, which have
     * no grouped-query form. Rotary encoding splits the key column into this many heads.
     *
     * @return the param
     */
    default IntParam numKvHeads() {
        return headParamSet().numKvHeads;
    }

    /** @return the value of {@link #numKvHeads()} (or its default) */
    default int getNumKvHeads() {
        return (Integer) getOrDefault(numKvHeads());
    }

    /**
     * Sets {@link #numKvHeads()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNumKvHeads(int value) {
        set(numKvHeads(), value);
        return self();
    }

    /**
     * Key/value heads actually used.
     *
     * @return {@code numKvHeads}, or {@code numHeads} when it is 0
     */
    default int effectiveNumKvHeads() {
        return getNumKvHeads() == 0 ? getNumHeads() : getNumKvHeads();
    }
}
