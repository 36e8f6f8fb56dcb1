package io.sparkattention.ml.feature;

import io.sparkattention.ml.AttentionParamSet;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects both positional encodings share (the encoding's base, the first row's
 * position, what NaN/Inf inputs do), created for one owner after its uid is set and exposed
 * through {@link PositionalEncodingParams}: one definition and one set of defaults for
 * {@link SinusoidalPositionalEncoding} and {@link RotaryPositionalEncoding}.
 */
public final class PositionalEncodingParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    final DoubleParam base;
    final LongParam positionOffset;
    final Param<String> handleInvalid;

    /**
     * @param owner       the stage the params belong to
     * @param baseDoc     what {@code base} means for this encoding
     * @param defaultBase the default of {@code base}
     */
    PositionalEncodingParamSet(Params owner, String baseDoc, double defaultBase) {
        base = new DoubleParam(owner, "base", baseDoc, ParamValidators.gt(1));
        positionOffset = new LongParam(owner, "positionOffset", "position of each sequence's first row",
            ParamValidators.gtEq(0));
        handleInvalid = new Param<>(owner, "handleInvalid",
            "NaN or infinite input values: error (reject the row, naming column and row) or keep (propagate)",
            ParamValidators.inArray(AttentionParamSet.HANDLE_INVALID));
        owner.setDefault(base, defaultBase);
        owner.setDefault(positionOffset, 0L);
        owner.setDefault(handleInvalid, "error");
    }
}
