package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.nn.AttentionWeightsMode;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

import java.util.Locale;

/**
 * The params every attention stage shares — columns, heads, masking, weights, kernel and
 * execution settings — with one accessor per param named like it, and setters that return the
 * stage itself ({@code T}). Implemented by {@link ScaledDotProductAttention},
 * {@link MultiHeadAttention} and {@link MultiHeadAttentionModel}.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionParams<T extends AttentionParams<T>> extends SequenceLayoutParams<T> {

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
     * Column whose value names a row in data error messages; empty (default): its position.
     *
     * @return the param
     */
    default Param<String> rowIdCol() {
        return attentionParamSet().rowIdCol;
    }

    /** @return the value of {@link #rowIdCol()} (or its default) */
    default String getRowIdCol() {
        return getOrDefault(rowIdCol());
    }

    /**
     * Sets {@link #rowIdCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setRowIdCol(String value) {
        set(rowIdCol(), value);
        return self();
    }

    /**
     * Output column (default {@code attn_output}).
     *
     * @return the param
     */
    default Param<String> outputCol() {
        return attentionParamSet().outputCol;
    }

    /** @return the value of {@link #outputCol()} (or its default) */
    default String getOutputCol() {
        return getOrDefault(outputCol());
    }

    /**
     * Sets {@link #outputCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setOutputCol(String value) {
        set(outputCol(), value);
        return self();
    }

    /**
     * Attention weights column; empty (default): weights are not computed.
     *
     * @return the param
     */
    default Param<String> weightsCol() {
        return attentionParamSet().weightsCol;
    }

    /** @return the value of {@link #weightsCol()} (or its default) */
    default String getWeightsCol() {
        return getOrDefault(weightsCol());
    }

    /**
     * Sets {@link #weightsCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setWeightsCol(String value) {
        set(weightsCol(), value);
        return self();
    }

    /**
     * Weights averaged over heads, L×S (default true), or per head, H×L×S.
     *
     * @return the param
     */
    default BooleanParam averageWeights() {
        return attentionParamSet().averageWeights;
    }

    /** @return the value of {@link #averageWeights()} (or its default) */
    default boolean getAverageWeights() {
        return (Boolean) getOrDefault(averageWeights());
    }

    /**
     * Sets {@link #averageWeights()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setAverageWeights(boolean value) {
        set(averageWeights(), value);
        return self();
    }

    /**
     * Number of heads (default 1).
     *
     * @return the param
     */
    default IntParam numHeads() {
        return attentionParamSet().numHeads;
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
     * {@code [g·head_dim, (g+1)·head_dim)}. Only {@link ScaledDotProductAttention} takes
     * grouped-query input; {@link MultiHeadAttention} and {@link MultiHeadAttentionModel} hold
     * PyTorch {@code nn.MultiheadAttention} weights, which have no grouped-query form.
     *
     * @return the param
     */
    default IntParam numKvHeads() {
        return attentionParamSet().numKvHeads;
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

    /**
     * Score scale; unset (default) means {@code 1/sqrt(head_dim)}.
     *
     * @return the param
     */
    default DoubleParam scale() {
        return attentionParamSet().scale;
    }

    /** @return the value of {@link #scale()} (or its default) */
    default double getScale() {
        return (Double) getOrDefault(scale());
    }

    /**
     * Sets {@link #scale()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setScale(double value) {
        set(scale(), value);
        return self();
    }

    /**
     * Kernel tile size; 0 (default) means the kernel's tuned default.
     *
     * @return the param
     */
    default IntParam blockSize() {
        return attentionParamSet().blockSize;
    }

    /** @return the value of {@link #blockSize()} (or its default) */
    default int getBlockSize() {
        return (Integer) getOrDefault(blockSize());
    }

    /**
     * Sets {@link #blockSize()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setBlockSize(int value) {
        set(blockSize(), value);
        return self();
    }

    /**
     * {@code error} (default): reject NaN/Inf input rows; {@code keep}: let them propagate.
     *
     * @return the param
     */
    default Param<String> handleInvalid() {
        return attentionParamSet().handleInvalid;
    }

    /** @return the value of {@link #handleInvalid()} (or its default) */
    default String getHandleInvalid() {
        return getOrDefault(handleInvalid());
    }

    /**
     * Sets {@link #handleInvalid()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setHandleInvalid(String value) {
        set(handleInvalid(), value);
        return self();
    }

    /**
     * {@code auto} (default), {@code batch}, {@code head} or {@code sequence}.
     *
     * @return the param
     */
    default Param<String> strategy() {
        return attentionParamSet().strategy;
    }

    /** @return the value of {@link #strategy()} (or its default) */
    default String getStrategy() {
        return getOrDefault(strategy());
    }

    /**
     * Sets {@link #strategy()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setStrategy(String value) {
        set(strategy(), value);
        return self();
    }

    // ---- derived settings -------------------------------------------------------------------

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

    /**
     * Key/value heads actually used.
     *
     * @return {@code numKvHeads}, or {@code numHeads} when it is 0
     */
    default int effectiveNumKvHeads() {
        return getNumKvHeads() == 0 ? getNumHeads() : getNumKvHeads();
    }

    /**
     * Which weights are computed.
     *
     * @return none (no {@code weightsCol}), averaged or per head
     */
    default AttentionWeightsMode weightsMode() {
        if (getWeightsCol().isEmpty()) {
            return AttentionWeightsMode.NONE;
        }
        return getAverageWeights() ? AttentionWeightsMode.AVERAGED : AttentionWeightsMode.PER_HEAD;
    }

    /**
     * The kernel's spec from these params.
     *
     * @return scale, causal mask and alignment, window and tile sizes
     */
    default AttentionSpec attentionSpec() {
        AttentionSpec spec = AttentionSpec.defaults()
            .withCausal(getCausal())
            .withAlignment(CausalAlignment.valueOf(getCausalAlignment().toUpperCase(Locale.ROOT)))
            .withWindow(getWindowLeft(), getWindowRight());
        if (isDefined(scale())) {
            spec = spec.withScale((float) getScale());
        }
        if (getBlockSize() > 0) {
            spec = spec.withBlocks(getBlockSize(), getBlockSize());
        }
        return spec;
    }
}
