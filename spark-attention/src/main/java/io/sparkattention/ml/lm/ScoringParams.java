package io.sparkattention.ml.lm;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * {@link GptLanguageModel}'s scoring params ({@link ScoringParamSet}), one accessor per param named
 * like it, setters returning the model.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface ScoringParams<T extends ScoringParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    ScoringParamSet scoringParamSet();

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /** @return the tokensCol param */
    default Param<String> tokensCol() {
        return scoringParamSet().tokensCol;
    }

    /** @return the column of the tokens scored */
    default String getTokensCol() {
        return getOrDefault(tokensCol());
    }

    /**
     * @param value the column of the tokens scored (int, L - 1)
     * @return this stage
     */
    default T setTokensCol(String value) {
        set(tokensCol(), value);
        return me();
    }

    /** @return the perplexityCol param */
    default Param<String> perplexityCol() {
        return scoringParamSet().perplexityCol;
    }

    /** @return the perplexity column */
    default String getPerplexityCol() {
        return getOrDefault(perplexityCol());
    }

    /**
     * @param value the perplexity column (double; null for fewer than two tokens)
     * @return this stage
     */
    default T setPerplexityCol(String value) {
        set(perplexityCol(), value);
        return me();
    }

    /** @return the tokenLogProbs param */
    default BooleanParam tokenLogProbs() {
        return scoringParamSet().tokenLogProbs;
    }

    /** @return whether each token's log-probability is written */
    default boolean getTokenLogProbs() {
        return (Boolean) getOrDefault(tokenLogProbs());
    }

    /**
     * @param value whether to write each token's log-probability (tokenLogProbsCol)
     * @return this stage
     */
    default T setTokenLogProbs(boolean value) {
        set(tokenLogProbs(), value);
        return me();
    }

    /** @return the tokenLogProbsCol param */
    default Param<String> tokenLogProbsCol() {
        return scoringParamSet().tokenLogProbsCol;
    }

    /** @return the column of each token's log-probability */
    default String getTokenLogProbsCol() {
        return getOrDefault(tokenLogProbsCol());
    }

    /**
     * @param value the column of each token's log-probability ({@code array<double>} of L - 1)
     * @return this stage
     */
    default T setTokenLogProbsCol(String value) {
        set(tokenLogProbsCol(), value);
        return me();
    }

    /** @return the stride param */
    default IntParam stride() {
        return scoringParamSet().stride;
    }

    /** @return the sliding window's stride (0: half the positions) */
    default int getStride() {
        return (Integer) getOrDefault(stride());
    }

    /**
     * @param value the sliding window's stride for rows longer than the positions, in [1, positions], or 0 for half the positions
     * @return this stage
     */
    default T setStride(int value) {
        set(stride(), value);
        return me();
    }

    /** @return the batchRows param */
    default IntParam batchRows() {
        return scoringParamSet().batchRows;
    }

    /** @return the most rows scored together */
    default int getBatchRows() {
        return (Integer) getOrDefault(batchRows());
    }

    /**
     * @param value the most rows of a task scored together, at least 1
     * @return this stage
     */
    default T setBatchRows(int value) {
        set(batchRows(), value);
        return me();
    }

    /** @return the batchTokens param */
    default IntParam batchTokens() {
        return scoringParamSet().batchTokens;
    }

    /** @return the most tokens scored together */
    default int getBatchTokens() {
        return (Integer) getOrDefault(batchTokens());
    }

    /**
     * @param value the most tokens of a task scored together, at least 1
     * @return this stage
     */
    default T setBatchTokens(int value) {
        set(batchTokens(), value);
        return me();
    }

}
