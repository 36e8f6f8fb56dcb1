package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

import java.util.Locale;

/**
 * The params every attention stage shares, by idea: the columns it reads
 * ({@link AttentionColumnParams}) and writes ({@link OutputColParams}, with what invalid rows do
 * and the row id column), its heads ({@link HeadParams}), its masks ({@link AttentionMaskParams}),
 * its weights output ({@link AttentionWeightsParams}), flat sequence columns
 * ({@link SequenceLayoutParams}); and here the kernel's and Spark's settings: the score scale, the
 * kernel's tile size and the execution strategy, from which {@link #attentionSpec()} builds the
 * kernel's spec. Implemented by {@link ScaledDotProductAttention}, {@link MultiHeadAttention} and
 * {@link MultiHeadAttentionModel}, which hold the Param objects in one {@link AttentionParamSet}
 * created with the stage (itself holding the {@link StageParamSet} and {@link HeadParamSet} the
 * interfaces shared with other stages read).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionParams<T extends AttentionParams<T>> extends AttentionColumnParams<T>, OutputColParams<T>,
    HeadParams<T>, AttentionMaskParams<T>, AttentionWeightsParams<T>, SequenceLayoutParams<T> {

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** Internal: the output column's, invalid rows' and row id's Param objects, in {@link #attentionParamSet()}. */
    @Override
    default StageParamSet stageParamSet() {
        return attentionParamSet().stage;
    }

    /** Internal: the heads' Param objects, held by {@link #attentionParamSet()}. */
    @Override
    default HeadParamSet headParamSet() {
        return attentionParamSet().heads;
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
