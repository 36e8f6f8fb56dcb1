package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link BertEncoderModel} beyond the shared column params: the optional
 * outputs, pooling and the batches, created for the model after its uid is set and exposed
 * through {@link BertEncoderParams}.
 */
public final class BertEncoderParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The values of {@code statesLayout}. */
    static final String[] STATES_LAYOUTS = {"nested", "flat"};
    /** The values of {@code pooling}. */
    static final String[] POOLINGS = {"mean", "cls", "max"};

    final Param<String> statesCol;
    final Param<String> statesLayout;
    final Param<String> attentionCol;
    final IntParam attentionLayer;
    final Param<String> pooling;
    final BooleanParam normalize;
    final IntParam batchRows;
    final IntParam batchTokens;

    BertEncoderParamSet(Params owner) {
        statesCol = new Param<>(owner, "statesCol",
            "optional output column: the last hidden state (L×E, see statesLayout); empty for none");
        statesLayout = new Param<>(owner, "statesLayout",
            "statesCol's layout: nested (array<array<float>>) or flat (array<float> of L·E values with the width "
                + "in the column's metadata)", ParamValidators.inArray(STATES_LAYOUTS));
        attentionCol = new Param<>(owner, "attentionCol",
            "optional output column: layer attentionLayer's attention probabilities per head, H×L×L "
                + "(array<array<array<float>>>); empty for none");
        attentionLayer = new IntParam(owner, "attentionLayer", "the layer attentionCol shows, from 0",
            ParamValidators.gtEq(0));
        pooling = new Param<>(owner, "pooling",
            "how the token states become the embedding: mean (over all tokens, [CLS] and [SEP] included), cls "
                + "(the first token) or max (per dimension)", ParamValidators.inArray(POOLINGS));
        normalize = new BooleanParam(owner, "normalize", "L2-normalise the embedding");
        batchRows = new IntParam(owner, "batchRows",
            "most rows of a task encoded together by one stacked forward (nothing is padded; a row's outputs do not "
                + "depend on its batch)", ParamValidators.gtEq(1));
        batchTokens = new IntParam(owner, "batchTokens",
            "most tokens of a task encoded together by one stacked forward (a longer row is a batch of its own)",
            ParamValidators.gtEq(1));
        owner.setDefault(statesCol, "");
        owner.setDefault(statesLayout, "nested");
        owner.setDefault(attentionCol, "");
        owner.setDefault(attentionLayer, 0);
        owner.setDefault(pooling, "mean");
        owner.setDefault(normalize, true);
        owner.setDefault(batchRows, EncoderBatches.DEFAULT_BATCH_ROWS);
        owner.setDefault(batchTokens, EncoderBatches.DEFAULT_BATCH_TOKENS);
    }
}
