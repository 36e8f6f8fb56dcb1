package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;

/**
 * The params a column-to-column stage shares ({@link StageParamSet}), with one accessor per param
 * named like it and setters that return the stage itself ({@code T}), as MLlib's
 * {@code HasInputCol}, {@code HasOutputCol} and {@code HasHandleInvalid} give its Scala stages.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface StageParams<T extends StageParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    StageParamSet stageParamSet();

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

    /** @return the param for invalid rows (default {@code error}) */
    default Param<String> handleInvalid() {
        return stageParamSet().handleInvalid;
    }

    /** @return what invalid rows do */
    default String getHandleInvalid() {
        return getOrDefault(handleInvalid());
    }

    /**
     * @param value one of the values the param's description lists
     * @return this stage
     */
    default T setHandleInvalid(String value) {
        set(handleInvalid(), value);
        return me();
    }

    /** @return the row id param (default empty: rows are named by their position in their partition) */
    default Param<String> rowIdCol() {
        return stageParamSet().rowIdCol;
    }

    /** @return the column naming rows in error messages, or empty */
    default String getRowIdCol() {
        return getOrDefault(rowIdCol());
    }

    /**
     * @param value a column naming rows in data error messages ("row ID: ..."), or empty
     * @return this stage
     */
    default T setRowIdCol(String value) {
        set(rowIdCol(), value);
        return me();
    }

    /** The input column as a {@link Column}, its name quoted. */
    default Column inputColumn() {
        return column(getInputCol());
    }

    /** The row id column for error messages, or null without one. */
    default Column rowIdColumn() {
        String id = getRowIdCol();
        return id.isEmpty() ? null : column(id);
    }

    /** A column by name, backtick-quoted so that dots and backticks in it are taken literally. */
    static Column column(String name) {
        return functions.col("`" + name.replace("`", "``") + "`");
    }
}
