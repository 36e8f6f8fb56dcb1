package io.sparkattention.ml;

import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of a stage's heads ({@code numHeads}, and {@code numKvHeads} for
 * grouped-query attention), created for one owner after its uid is set and exposed through
 * {@link HeadParams}: one definition and one set of defaults for the attention stages and rotary
 * encoding, each describing what the heads mean to it.
 */
public final class HeadParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    final IntParam numHeads;
    final IntParam numKvHeads;

    /**
     * @param owner        the stage
     * @param headsDoc     what {@code numHeads} means to the stage (at least 1, default 1)
     * @param kvHeadsDoc   what {@code numKvHeads} means to the stage (at least 0, default 0: numHeads)
     */
    public HeadParamSet(Params owner, String headsDoc, String kvHeadsDoc) {
        numHeads = new IntParam(owner, "numHeads", headsDoc, ParamValidators.gtEq(1));
        numKvHeads = new IntParam(owner, "numKvHeads", kvHeadsDoc, ParamValidators.gtEq(0));
        owner.setDefault(numHeads, 1);
        owner.setDefault(numKvHeads, 0);
    }
}
