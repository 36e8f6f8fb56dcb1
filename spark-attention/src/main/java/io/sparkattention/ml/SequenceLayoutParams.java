package io.sparkattention.ml;

import io.sparkattention.rows.SequenceLayout;

import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The attention stages' params for flat sequence columns ({@link SequenceLayout}): the width of
 * flat inputs whose metadata does not give one, and the layout of the output.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface SequenceLayoutParams<T extends SequenceLayoutParams<T>> extends Params {

    /** Values of {@code outputLayout}. */
    String[] OUTPUT_LAYOUTS = {"auto", "nested", "flat"};

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    AttentionParamSet attentionParamSet();

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /**
     * Values per position of flat {@code array<float|double>} query, key and value columns whose
     * metadata ({@link SequenceLayout#WIDTH_KEY}) gives none; 0 (default): such a column is an
     * error, unless the layer's weights fix its width ({@code MultiHeadAttentionModel}). Where
     * both the metadata and this param give a width, they must agree.
     *
     * @return the param
     */
    default IntParam sequenceWidth() {
        return attentionParamSet().sequenceWidth;
    }

    /** @return the value of {@link #sequenceWidth()} (or its default) */
    default int getSequenceWidth() {
        return (Integer) $(sequenceWidth());
    }

    /**
     * Sets {@link #sequenceWidth()}.
     *
     * @param value the new value (≥ 0)
     * @return this stage
     */
    default T setSequenceWidth(int value) {
        set(sequenceWidth(), value);
        return me();
    }

    /**
     * Layout of the output column: {@code nested} ({@code array<array<float>>}, L×W), {@code flat}
     * ({@code array<float>} of L·W values, its width in the column's metadata when the stage knows
     * it before running), or {@code auto} (default): flat when the query column is flat.
     * Attention weights stay nested.
     *
     * @return the param
     */
    default Param<String> outputLayout() {
        return attentionParamSet().outputLayout;
    }

    /** @return the value of {@link #outputLayout()} (or its default) */
    default String getOutputLayout() {
        return $(outputLayout());
    }

    /**
     * Sets {@link #outputLayout()}.
     *
     * @param value {@code auto}, {@code nested} or {@code flat}
     * @return this stage
     */
    default T setOutputLayout(String value) {
        set(outputLayout(), value);
        return me();
    }
}
