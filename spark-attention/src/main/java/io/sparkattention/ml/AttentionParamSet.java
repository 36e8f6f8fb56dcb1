package io.sparkattention.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects only the attention stages have, created for one owner after its uid is set
 * (the Java idiom of MLlib's {@code JavaTestParams}) and exposed through the interfaces
 * {@link AttentionParams} gathers, with the sets shared with other stages for the output column,
 * invalid rows and row id ({@link StageParamSet}) and the heads ({@link HeadParamSet}): the params
 * of {@code ScaledDotProductAttention}, {@code MultiHeadAttention} and
 * {@code MultiHeadAttentionModel}: one definition, one set of defaults and one schema check, as
 * MLlib's Scala stages share a params trait.
 */
public final class AttentionParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Values of {@code causalAlignment}. */
    static final String[] ALIGNMENTS = {"top_left", "bottom_right"};
    /** Values of {@code strategy}. */
    static final String[] STRATEGIES = {"auto", "batch", "head", "sequence"};

    final Param<String> queryCol;
    final Param<String> keyCol;
    final Param<String> valueCol;
    final Param<String> keyLengthCol;
    final Param<String> attnMaskCol;
    final Param<String> attnBiasCol;
    final Param<String> weightsCol;
    final BooleanParam averageWeights;
    final BooleanParam causal;
    final Param<String> causalAlignment;
    final IntParam windowLeft;
    final IntParam windowRight;
    final DoubleParam scale;
    final IntParam blockSize;
    final Param<String> strategy;
    final IntParam sequenceWidth;
    final Param<String> outputLayout;
    /** The output column, what NaN/±∞ inputs do and the row id column ({@link OutputColParams}). */
    final StageParamSet stage;
    /** The heads ({@link HeadParams}). */
    final HeadParamSet heads;

    /**
     * The output column ({@code attn_output} by default), what NaN/±∞ inputs do and the row id
     * column of an attention stage.
     */
    private static StageParamSet stageParams(Params owner) {
        return StageParamSet.withoutInput(owner, "output column: array<array<float>>, L×outputWidth", "attn_output",
            StageParamSet.NON_FINITE_DOC, StageParamSet.NON_FINITE_HANDLING);
    }

    /** The heads of an attention stage, grouped-query attention's key/value heads among them. */
    private static HeadParamSet headParams(Params owner) {
        return new HeadParamSet(owner, "number of attention heads (>= 1)",
            "number of key/value heads for grouped-query attention (divides numHeads; query head h uses "
                + "key/value head h / (numHeads / numKvHeads)); 0: numHeads");
    }

    AttentionParamSet(Params owner) {
        queryCol = new Param<>(owner, "queryCol",
            "query column: array<array<float|double>> or array<vector>, L×E, or flat array<float|double>, L·E");
        keyCol = new Param<>(owner, "keyCol", "key column (S×kdim); empty: the query column (self-attention)");
        valueCol = new Param<>(owner, "valueCol", "value column (S×vdim); empty: the key column");
        keyLengthCol = new Param<>(owner, "keyLengthCol",
            "integer column: keys at positions >= its value are padding; empty: none");
        attnMaskCol = new Param<>(owner, "attnMaskCol",
            "boolean mask column, L×S or H×L×S, true = may attend; empty: none");
        attnBiasCol = new Param<>(owner, "attnBiasCol",
            "additive bias column (float/double, L×S or H×L×S, -inf allowed); empty: none");
        weightsCol = new Param<>(owner, "weightsCol",
            "attention weights column (L×S averaged, or H×L×S); empty: weights are not computed");
        averageWeights = new BooleanParam(owner, "averageWeights",
            "average the weights over heads (L×S) rather than one slice per head (H×L×S)");
        causal = new BooleanParam(owner, "causal", "mask keys after the aligned diagonal");
        causalAlignment = new Param<>(owner, "causalAlignment",
            "diagonal alignment when L != S: top_left (query i sees keys <= i, PyTorch is_causal) or "
                + "bottom_right (keys <= i + S - L, decoding against a cache)", ParamValidators.inArray(ALIGNMENTS));
        windowLeft = new IntParam(owner, "windowLeft",
            "sliding window: keys visible before the aligned diagonal; -1: unbounded", ParamValidators.gtEq(-1));
        windowRight = new IntParam(owner, "windowRight",
            "sliding window: keys visible after the aligned diagonal; -1: unbounded", ParamValidators.gtEq(-1));
        scale = new DoubleParam(owner, "scale", "score scale; unset: 1/sqrt(head_dim)");
        blockSize = new IntParam(owner, "blockSize",
            "kernel tile size (query rows and keys per tile); 0: the kernel's tuned default",
            ParamValidators.gtEq(0));
        strategy = new Param<>(owner, "strategy",
            "how work is laid out on Spark: auto, batch (whole rows), head ((row, head) units) or sequence "
                + "((row, head, query block, key block) units)", ParamValidators.inArray(STRATEGIES));

        sequenceWidth = new IntParam(owner, "sequenceWidth",
            "values per position of flat array<float> query/key/value columns whose metadata gives none; 0: none",
            ParamValidators.gtEq(0));
        outputLayout = new Param<>(owner, "outputLayout",
            "output column layout: nested (array<array<float>>), flat (array<float>, L*W values) or auto (flat "
                + "when the query column is flat)", ParamValidators.inArray(SequenceLayoutParams.OUTPUT_LAYOUTS));

        owner.setDefault(queryCol, "query");
        owner.setDefault(keyCol, "");
        owner.setDefault(valueCol, "");
        owner.setDefault(keyLengthCol, "");
        owner.setDefault(attnMaskCol, "");
        owner.setDefault(attnBiasCol, "");
        owner.setDefault(weightsCol, "");
        owner.setDefault(averageWeights, true);
        owner.setDefault(causal, false);
        owner.setDefault(causalAlignment, "top_left");
        owner.setDefault(windowLeft, -1);
        owner.setDefault(windowRight, -1);
        owner.setDefault(blockSize, 0);
        owner.setDefault(strategy, "auto");
        owner.setDefault(sequenceWidth, 0);
        owner.setDefault(outputLayout, "auto");
        stage = stageParams(owner);
        heads = headParams(owner);
    }
}
