package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.nn.WeightsMode;
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
public interface AttentionParams<T extends AttentionParams<T>> extends Params {

    /** The stage's Param objects (internal; not a Param itself, so Spark does not list it). */
    AttentionParamSet attentionParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** Query column (default {@code query}): array&lt;array&lt;float|double&gt;&gt; or array&lt;vector&gt;. */
    default Param<String> queryCol() {
        return attentionParamSet().queryCol;
    }

    default String getQueryCol() {
        return getOrDefault(queryCol());
    }

    default T setQueryCol(String value) {
        set(queryCol(), value);
        return self();
    }

    /** Key column; empty (default) means the query column: self-attention. */
    default Param<String> keyCol() {
        return attentionParamSet().keyCol;
    }

    default String getKeyCol() {
        return getOrDefault(keyCol());
    }

    default T setKeyCol(String value) {
        set(keyCol(), value);
        return self();
    }

    /** Value column; empty (default) means the key column. */
    default Param<String> valueCol() {
        return attentionParamSet().valueCol;
    }

    default String getValueCol() {
        return getOrDefault(valueCol());
    }

    default T setValueCol(String value) {
        set(valueCol(), value);
        return self();
    }

    /** Integer column of valid key counts (key padding); empty (default): none. */
    default Param<String> keyLengthCol() {
        return attentionParamSet().keyLengthCol;
    }

    default String getKeyLengthCol() {
        return getOrDefault(keyLengthCol());
    }

    default T setKeyLengthCol(String value) {
        set(keyLengthCol(), value);
        return self();
    }

    /** Boolean mask column (L×S or H×L×S, true = may attend); empty (default): none. */
    default Param<String> attnMaskCol() {
        return attentionParamSet().attnMaskCol;
    }

    default String getAttnMaskCol() {
        return getOrDefault(attnMaskCol());
    }

    default T setAttnMaskCol(String value) {
        set(attnMaskCol(), value);
        return self();
    }

    /** Additive bias column (L×S or H×L×S); empty (default): none. */
    default Param<String> attnBiasCol() {
        return attentionParamSet().attnBiasCol;
    }

    default String getAttnBiasCol() {
        return getOrDefault(attnBiasCol());
    }

    default T setAttnBiasCol(String value) {
        set(attnBiasCol(), value);
        return self();
    }

    /** Column whose value names a row in data error messages; empty (default): its position. */
    default Param<String> rowIdCol() {
        return attentionParamSet().rowIdCol;
    }

    default String getRowIdCol() {
        return getOrDefault(rowIdCol());
    }

    default T setRowIdCol(String value) {
        set(rowIdCol(), value);
        return self();
    }

    /** Output column (default {@code attn_output}). */
    default Param<String> outputCol() {
        return attentionParamSet().outputCol;
    }

    default String getOutputCol() {
        return getOrDefault(outputCol());
    }

    default T setOutputCol(String value) {
        set(outputCol(), value);
        return self();
    }

    /** Attention weights column; empty (default): weights are not computed. */
    default Param<String> weightsCol() {
        return attentionParamSet().weightsCol;
    }

    default String getWeightsCol() {
        return getOrDefault(weightsCol());
    }

    default T setWeightsCol(String value) {
        set(weightsCol(), value);
        return self();
    }

    /** Weights averaged over heads, L×S (default true), or per head, H×L×S. */
    default BooleanParam averageWeights() {
        return attentionParamSet().averageWeights;
    }

    default boolean getAverageWeights() {
        return (Boolean) getOrDefault(averageWeights());
    }

    default T setAverageWeights(boolean value) {
        set(averageWeights(), value);
        return self();
    }

    /** Number of heads (default 1). */
    default IntParam numHeads() {
        return attentionParamSet().numHeads;
    }

    default int getNumHeads() {
        return (Integer) getOrDefault(numHeads());
    }

    default T setNumHeads(int value) {
        set(numHeads(), value);
        return self();
    }

    /** Key/value heads for grouped-query attention; 0 (default) means {@code numHeads}. */
    default IntParam numKvHeads() {
        return attentionParamSet().numKvHeads;
    }

    default int getNumKvHeads() {
        return (Integer) getOrDefault(numKvHeads());
    }

    default T setNumKvHeads(int value) {
        set(numKvHeads(), value);
        return self();
    }

    /** Causal mask (default false). */
    default BooleanParam causal() {
        return attentionParamSet().causal;
    }

    default boolean getCausal() {
        return (Boolean) getOrDefault(causal());
    }

    default T setCausal(boolean value) {
        set(causal(), value);
        return self();
    }

    /** {@code top_left} (default, PyTorch's is_causal) or {@code bottom_right}. */
    default Param<String> causalAlignment() {
        return attentionParamSet().causalAlignment;
    }

    default String getCausalAlignment() {
        return getOrDefault(causalAlignment());
    }

    default T setCausalAlignment(String value) {
        set(causalAlignment(), value);
        return self();
    }

    /** Sliding window: keys visible before the aligned diagonal; -1 (default) unbounded. */
    default IntParam windowLeft() {
        return attentionParamSet().windowLeft;
    }

    default int getWindowLeft() {
        return (Integer) getOrDefault(windowLeft());
    }

    default T setWindowLeft(int value) {
        set(windowLeft(), value);
        return self();
    }

    /** Sliding window: keys visible after the aligned diagonal; -1 (default) unbounded. */
    default IntParam windowRight() {
        return attentionParamSet().windowRight;
    }

    default int getWindowRight() {
        return (Integer) getOrDefault(windowRight());
    }

    default T setWindowRight(int value) {
        set(windowRight(), value);
        return self();
    }

    /** Score scale; unset (default) means {@code 1/sqrt(head_dim)}. */
    default DoubleParam scale() {
        return attentionParamSet().scale;
    }

    default double getScale() {
        return (Double) getOrDefault(scale());
    }

    default T setScale(double value) {
        set(scale(), value);
        return self();
    }

    /** Kernel tile size; 0 (default) means the kernel's tuned default. */
    default IntParam blockSize() {
        return attentionParamSet().blockSize;
    }

    default int getBlockSize() {
        return (Integer) getOrDefault(blockSize());
    }

    default T setBlockSize(int value) {
        set(blockSize(), value);
        return self();
    }

    /** {@code error} (default): reject NaN/Inf input rows; {@code keep}: let them propagate. */
    default Param<String> handleInvalid() {
        return attentionParamSet().handleInvalid;
    }

    default String getHandleInvalid() {
        return getOrDefault(handleInvalid());
    }

    default T setHandleInvalid(String value) {
        set(handleInvalid(), value);
        return self();
    }

    /** {@code auto} (default), {@code batch}, {@code head} or {@code sequence}. */
    default Param<String> strategy() {
        return attentionParamSet().strategy;
    }

    default String getStrategy() {
        return getOrDefault(strategy());
    }

    default T setStrategy(String value) {
        set(strategy(), value);
        return self();
    }

    // ---- derived settings -------------------------------------------------------------------

    /** The key column actually read (the query column when unset). */
    default String effectiveKeyCol() {
        return getKeyCol().isEmpty() ? getQueryCol() : getKeyCol();
    }

    /** The value column actually read (the key column when unset). */
    default String effectiveValueCol() {
        return getValueCol().isEmpty() ? effectiveKeyCol() : getValueCol();
    }

    /** Key/value heads actually used. */
    default int effectiveNumKvHeads() {
        return getNumKvHeads() == 0 ? getNumHeads() : getNumKvHeads();
    }

    /** Which weights are computed. */
    default WeightsMode weightsMode() {
        if (getWeightsCol().isEmpty()) {
            return WeightsMode.NONE;
        }
        return getAverageWeights() ? WeightsMode.AVERAGED : WeightsMode.PER_HEAD;
    }

    /** The kernel's spec from these params. */
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
