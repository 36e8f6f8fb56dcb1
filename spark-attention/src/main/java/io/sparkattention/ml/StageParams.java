package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;

/**
 * The params a column-to-column stage shares ({@link StageParamSet}): its input column, beside
 * the output column, what invalid rows do and the row id column ({@link OutputColParams}), with one
 * accessor per param named like it and setters that return the stage itself ({@code T}), as
 * MLlib's {@code HasInputCol}, {@code HasOutputCol} and {@code HasHandleInvalid} give its Scala
 * stages.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface StageParams<T extends StageParams<T>> extends OutputColParams<T> {

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /** @return the input column param */
    default Param<String> inputCol() {
        return stageParamSet().inputCol;
    }

    /** @return the input column */
    default String getInputCol() {
        return getOrDefault(inputCol());
    }

    /**
     * @param value the input column
     * @return this stage
     */
    default T setInputCol(String value) {
        set(inputCol(), value);
        return me();
    }

    /** The input column as a {@link Column}, its name quoted. */
    default Column inputColumn() {
        return column(getInputCol());
    }

    /** A column by name, backtick-quoted so that dots and backticks in it are taken literally. */
    static Column column(String name) {
        return functions.col("`" + name.replace("`", "``") + "`");
    }
}
