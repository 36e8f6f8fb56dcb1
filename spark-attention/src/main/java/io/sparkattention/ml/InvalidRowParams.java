package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Column;

/**
 * What every stage that reads rows shares ({@link StageParamSet}): what invalid rows do
 * ({@code handleInvalid}) and the column that names a row in data error messages
 * ({@code rowIdCol}), with one accessor per param named like it and setters that return the
 * stage itself ({@code T}), as MLlib's {@code HasHandleInvalid} gives its Scala stages.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface InvalidRowParams<T extends InvalidRowParams<T>> extends Params {

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

    /** @return the param for invalid rows (its values and default in its description) */
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

    /** The row id column for error messages, or null without one. */
    default Column rowIdColumn() {
        String id = getRowIdCol();
        return id.isEmpty() ? null : StageParams.column(id);
    }
}
