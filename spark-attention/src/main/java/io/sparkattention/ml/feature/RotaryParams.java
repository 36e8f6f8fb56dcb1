package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The columns of {@link RotaryPositionalEncoding} ({@link RotaryParamSet}): the query and key it
 * rotates and the two columns it writes, with one accessor per param named like it and setters
 * that return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface RotaryParams<T extends RotaryParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    RotaryParamSet rotaryParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /** @return the query column param (default {@code query}) */
    default Param<String> queryCol() {
        return rotaryParamSet().queryCol;
    }

    /** @return the query column */
    default String getQueryCol() {
        return getOrDefault(queryCol());
    }

    /**
     * @param value the query column
     * @return this stage
     */
    default T setQueryCol(String value) {
        set(queryCol(), value);
        return self();
    }

    /** @return the key column param (default empty: no key is rotated) */
    default Param<String> keyCol() {
        return rotaryParamSet().keyCol;
    }

    /** @return the key column, or empty */
    default String getKeyCol() {
        return getOrDefault(keyCol());
    }

    /**
     * @param value the key column, or empty
     * @return this stage
     */
    default T setKeyCol(String value) {
        set(keyCol(), value);
        return self();
    }

    /** @return the rotated query column param (default {@code <uid>__query}) */
    default Param<String> queryOutputCol() {
        return rotaryParamSet().queryOutputCol;
    }

    /** @return the rotated query column */
    default String getQueryOutputCol() {
        return getOrDefault(queryOutputCol());
    }

    /**
     * @param value the rotated query column; must not exist in the input
     * @return this stage
     */
    default T setQueryOutputCol(String value) {
        set(queryOutputCol(), value);
        return self();
    }

    /** @return the rotated key column param (default {@code <uid>__key}; unused without a key column) */
    default Param<String> keyOutputCol() {
        return rotaryParamSet().keyOutputCol;
    }

    /** @return the rotated key column */
    default String getKeyOutputCol() {
        return getOrDefault(keyOutputCol());
    }

    /**
     * @param value the rotated key column; must not exist in the input
     * @return this stage
     */
    default T setKeyOutputCol(String value) {
        set(keyOutputCol(), value);
        return self();
    }

    /** @return whether a key column is rotated too (its param is not empty) */
    default boolean rotatesKey() {
        return !getKeyCol().isEmpty();
    }
}
