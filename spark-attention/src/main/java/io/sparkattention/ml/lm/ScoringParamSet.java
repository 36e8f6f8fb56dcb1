package io.sparkattention.ml.lm;

import io.sparkattention.ml.feature.EncoderBatches;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link GptLanguageModel}'s scoring beyond the shared column params (whose
 * {@code outputCol} is the {@code log_prob} column): the other added columns, the sliding window's
 * stride and the batches, created for the model after its uid is set and exposed through
 * {@link ScoringParams}.
 */
public final class ScoringParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** {@code stride}'s default: half the model's positions (rounded up), Hugging Face's perplexity recipe's ratio. */
    public static final int HALF_WINDOW = 0;

    final Param<String> tokensCol;
    final Param<String> perplexityCol;
    final BooleanParam tokenLogProbs;
    final Param<String> tokenLogProbsCol;
    final IntParam stride;
    final IntParam batchRows;
    final IntParam batchTokens;

    ScoringParamSet(Params owner) {
        tokensCol = new Param<>(owner, "tokensCol", "output column: the tokens scored, L - 1 (int)");
        perplexityCol = new Param<>(owner, "perplexityCol",
            "output column: exp(-log_prob / tokens) (double; null for a row of fewer than two tokens)");
        tokenLogProbs = new BooleanParam(owner, "tokenLogProbs",
            "also write each token's log-probability given the tokens before it (tokenLogProbsCol)");
        tokenLogProbsCol = new Param<>(owner, "tokenLogProbsCol",
            "output column with tokenLogProbs: the L - 1 natural-log probabilities (array<double>)");
        stride = new IntParam(owner, "stride",
            "rows longer than the model's positions are scored by windows of that many tokens moved this many tokens "
                + "at a time (Hugging Face's perplexity recipe: every token scored once, with as much left context as "
                + "the window holds); at most the positions; 0: half the positions", ParamValidators.gtEq(0));
        batchRows = new IntParam(owner, "batchRows",
            "most rows of a task scored together (nothing is padded; a row's numbers do not depend on its batch)",
            ParamValidators.gtEq(1));
        batchTokens = new IntParam(owner, "batchTokens",
            "most tokens of a task scored together (a longer row is a batch of its own)", ParamValidators.gtEq(1));
        owner.setDefault(tokensCol, "tokens");
        owner.setDefault(perplexityCol, "perplexity");
        owner.setDefault(tokenLogProbs, false);
        owner.setDefault(tokenLogProbsCol, "token_log_probs");
        owner.setDefault(stride, HALF_WINDOW);
        owner.setDefault(batchRows, EncoderBatches.DEFAULT_BATCH_ROWS);
        owner.setDefault(batchTokens, EncoderBatches.DEFAULT_BATCH_TOKENS);
    }
}
