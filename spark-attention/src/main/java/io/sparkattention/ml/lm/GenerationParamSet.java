package io.sparkattention.ml.lm;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link GptLanguageModel#generate}: its output columns, the sampling
 * settings and the rows' sampling keys, created for the model after its uid is set and exposed
 * through {@link GenerationParams}.
 */
public final class GenerationParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** {@code maxNewTokens}' default. */
    public static final int DEFAULT_MAX_NEW_TOKENS = 32;

    final Param<String> generatedIdsCol;
    final Param<String> generatedTextCol;
    final IntParam maxNewTokens;
    final DoubleParam temperature;
    final IntParam topK;
    final DoubleParam topP;
    final LongParam seed;
    final IntParam eosId;
    final BooleanParam truncatePrompt;
    final Param<String> rowKeyCol;

    GenerationParamSet(Params owner) {
        generatedIdsCol = new Param<>(owner, "generatedIdsCol", "output column: the new ids only (array<int>)");
        generatedTextCol = new Param<>(owner, "generatedTextCol",
            "output column, when the model has a tokenizer: the new ids decoded (string); empty for none");
        maxNewTokens = new IntParam(owner, "maxNewTokens", "most new ids per row", ParamValidators.gtEq(1));
        temperature = new DoubleParam(owner, "temperature",
            "the logits are divided by it before sampling; 0: greedy (the largest logit)", ParamValidators.gtEq(0));
        topK = new IntParam(owner, "topK", "sample among the k most likely ids only; 0: all", ParamValidators.gtEq(0));
        topP = new DoubleParam(owner, "topP",
            "sample among the most likely ids whose probabilities add up to at least p (nucleus sampling); 1: all",
            ParamValidators.inRange(0, 1, false, true));
        seed = new LongParam(owner, "seed", "the sampling's seed: a row's draws are keyed by (seed, row key, step)");
        eosId = new IntParam(owner, "eosId",
            "the end-of-text id: a row stops after generating it (it is the row's last new id); -1: none",
            ParamValidators.gtEq(-1));
        truncatePrompt = new BooleanParam(owner, "truncatePrompt",
            "left-truncate a prompt so that it and maxNewTokens fit the model's positions (else such a row is an "
                + "error naming it)");
        rowKeyCol = new Param<>(owner, "rowKeyCol",
            "integer column keying each row's sampling (a row's ids then do not depend on the row's place); empty: "
                + "the row's position in the input (stable under partitioning and retries of the same input order)");
        owner.setDefault(generatedIdsCol, "generated_ids");
        owner.setDefault(generatedTextCol, "generated_text");
        owner.setDefault(maxNewTokens, DEFAULT_MAX_NEW_TOKENS);
        owner.setDefault(temperature, 0.0);
        owner.setDefault(topK, 0);
        owner.setDefault(topP, 1.0);
        owner.setDefault(seed, 0L);
        owner.setDefault(eosId, -1);
        owner.setDefault(truncatePrompt, false);
        owner.setDefault(rowKeyCol, "");
    }
}
