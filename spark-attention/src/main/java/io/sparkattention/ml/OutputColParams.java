package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;

/**
 * The output column of a stage that writes one ({@link StageParamSet}), beside what invalid rows
 * do and the row id column ({@link InvalidRowParams}), as MLlib's {@code HasOutputCol}.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface OutputColParams<T extends OutputColParams<T>> extends InvalidRowParams<T> {

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /** @return the output column param */
    default Param<String> outputCol() {
        return stageParamSet().outputCol;
    }

    /** @return the output column (empty for none where the stage allows it) */
    default String getOutputCol() {
        return getOrDefault(outputCol());
    }

    /**
     * @param value the output column; must not exist in the input
     * @return this stage
     */
    default T setOutputCol(String value) {
        set(outputCol(), value);
        return me();
    }
}
