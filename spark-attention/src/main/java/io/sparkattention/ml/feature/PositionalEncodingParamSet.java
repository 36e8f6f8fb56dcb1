package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects both positional encodings share (the encoding's base and the first row's
 * position), created for one owner after its uid is set and exposed through
 * {@link PositionalEncodingParams}: one definition and one set of defaults for
 * {@link SinusoidalPositionalEncoding} and {@link RotaryPositionalEncoding}. Their columns, what
 * NaN/Inf inputs do and the row id column are in a {@code StageParamSet}; rotary encoding's heads
 * in a {@code HeadParamSet} and its columns in a {@link RotaryParamSet}.
 */
public final class PositionalEncodingParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    final DoubleParam base;
    final LongParam positionOffset;

    /**
     * @param owner       the stage the params belong to
     * @param baseDoc     what {@code base} means for this encoding
     * @param defaultBase the default of {@code base}
     */
    PositionalEncodingParamSet(Params owner, String baseDoc, double defaultBase) {
        base = new DoubleParam(owner, "base", baseDoc, ParamValidators.gt(1));
        positionOffset = new LongParam(owner, "positionOffset", "position of each sequence's first row",
            ParamValidators.gtEq(0));
        owner.setDefault(base, defaultBase);
        owner.setDefault(positionOffset, 0L);
    }
}
