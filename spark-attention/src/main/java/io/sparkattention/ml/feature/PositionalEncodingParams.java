package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Params;

/**
 * The params both positional encodings share — the encoding's base and the position of each
 * sequence's first row — with one accessor per param named like it,
 * and setters that return the stage itself ({@code T}). Implemented by
 * {@link SinusoidalPositionalEncoding} and {@link RotaryPositionalEncoding}.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface PositionalEncodingParams<T extends PositionalEncodingParams<T>> extends Params {

    /**
     * The stage's shared Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    PositionalEncodingParamSet positionalEncodingParamSet();

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * The encoding's base (default 10000), greater than 1.
     *
     * @return the param
     */
    default DoubleParam base() {
        return positionalEncodingParamSet().base;
    }

    /** @return the value of {@link #base()} (or its default) */
    default double getBase() {
        return (Double) getOrDefault(base());
    }

    /**
     * Sets {@link #base()}.
     *
     * @param value the base, greater than 1
     * @return this stage
     */
    default T setBase(double value) {
        set(base(), value);
        return self();
    }

    /**
     * Position of each sequence's first row (default 0), at least 0.
     *
     * @return the param
     */
    default LongParam positionOffset() {
        return positionalEncodingParamSet().positionOffset;
    }

    /** @return the value of {@link #positionOffset()} (or its default) */
    default long getPositionOffset() {
        return (Long) getOrDefault(positionOffset());
    }

    /**
     * Sets {@link #positionOffset()}.
     *
     * @param value the position of each sequence's first row, at least 0
     * @return this stage
     */
    default T setPositionOffset(long value) {
        set(positionOffset(), value);
        return self();
    }
}
