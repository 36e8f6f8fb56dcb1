package io.sparkattention.ml;

import io.sparkattention.nn.AttentionWeightsMode;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * Whether and how an attention stage outputs its attention weights: the weights column and
 * whether they are averaged over heads, with one accessor per param named like it and setters that
 * return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface AttentionWeightsParams<T extends AttentionWeightsParams<T>> extends Params {

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
}
