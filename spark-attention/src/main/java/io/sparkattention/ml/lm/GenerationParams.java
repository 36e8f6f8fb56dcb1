package io.sparkattention.ml.lm;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * {@link GptLanguageModel#generate}'s params ({@link GenerationParamSet}), one accessor per param
 * named like it, setters returning the model.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface GenerationParams<T extends GenerationParams<T>> extends Params {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    GenerationParamSet generationParamSet();

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /** @return the generatedIdsCol param */
    default Param<String> generatedIdsCol() {
        return generationParamSet().generatedIdsCol;
    }

    /** @return the new ids' column */
    default String getGeneratedIdsCol() {
        return getOrDefault(generatedIdsCol());
    }

    /**
     * @param value the new ids' column ({@code array<int>})
     * @return this stage
     */
    default T setGeneratedIdsCol(String value) {
        set(generatedIdsCol(), value);
        return me();
    }

    /** @return the generatedTextCol param */
    default Param<String> generatedTextCol() {
        return generationParamSet().generatedTextCol;
    }

    /** @return the decoded text's column, or empty */
    default String getGeneratedTextCol() {
        return getOrDefault(generatedTextCol());
    }

    /**
     * @param value the decoded text's column (string; needs the model's tokenizer), or empty for none
     * @return this stage
     */
    default T setGeneratedTextCol(String value) {
        set(generatedTextCol(), value);
        return me();
    }

    /** @return the maxNewTokens param */
    default IntParam maxNewTokens() {
        return generationParamSet().maxNewTokens;
    }

    /** @return the most new ids per row */
    default int getMaxNewTokens() {
        return (Integer) getOrDefault(maxNewTokens());
    }

    /**
     * @param value the most new ids per row, at least 1
     * @return this stage
     */
    default T setMaxNewTokens(int value) {
        set(maxNewTokens(), value);
        return me();
    }

    /** @return the temperature param */
    default DoubleParam temperature() {
        return generationParamSet().temperature;
    }

    /** @return the sampling temperature (0: greedy) */
    default double getTemperature() {
        return (Double) getOrDefault(temperature());
    }

    /**
     * @param value the sampling temperature, at least 0 (0: greedy)
     * @return this stage
     */
    default T setTemperature(double value) {
        set(temperature(), value);
        return me();
    }

    /** @return the topK param */
    default IntParam topK() {
        return generationParamSet().topK;
    }

    /** @return the top-k bound (0: off) */
    default int getTopK() {
        return (Integer) getOrDefault(topK());
    }

    /**
     * @param value sample among the k most likely ids; 0: all
     * @return this stage
     */
    default T setTopK(int value) {
        set(topK(), value);
        return me();
    }

    /** @return the topP param */
    default DoubleParam topP() {
        return generationParamSet().topP;
    }

    /** @return the nucleus bound (1: off) */
    default double getTopP() {
        return (Double) getOrDefault(topP());
    }

    /**
     * @param value the nucleus bound, in (0, 1]
     * @return this stage
     */
    default T setTopP(double value) {
        set(topP(), value);
        return me();
    }

    /** @return the seed param */
    default LongParam seed() {
        return generationParamSet().seed;
    }

    /** @return the sampling seed */
    default long getSeed() {
        return (Long) getOrDefault(seed());
    }

    /**
     * @param value the sampling seed
     * @return this stage
     */
    default T setSeed(long value) {
        set(seed(), value);
        return me();
    }

    /** @return the eosId param */
    default IntParam eosId() {
        return generationParamSet().eosId;
    }

    /** @return the end-of-text id, or -1 */
    default int getEosId() {
        return (Integer) getOrDefault(eosId());
    }

    /**
     * @param value the end-of-text id, or -1 for none
     * @return this stage
     */
    default T setEosId(int value) {
        set(eosId(), value);
        return me();
    }

    /** @return the truncatePrompt param */
    default BooleanParam truncatePrompt() {
        return generationParamSet().truncatePrompt;
    }

    /** @return whether long prompts are left-truncated */
    default boolean getTruncatePrompt() {
        return (Boolean) getOrDefault(truncatePrompt());
    }

    /**
     * @param value whether a prompt too long for maxNewTokens is left-truncated (else an error)
     * @return this stage
     */
    default T setTruncatePrompt(boolean value) {
        set(truncatePrompt(), value);
        return me();
    }

    /** @return the rowKeyCol param */
    default Param<String> rowKeyCol() {
        return generationParamSet().rowKeyCol;
    }

    /** @return the sampling key column, or empty */
    default String getRowKeyCol() {
        return getOrDefault(rowKeyCol());
    }

    /**
     * @param value an integer column keying each row's sampling, or empty for the row's position in the input
     * @return this stage
     */
    default T setRowKeyCol(String value) {
        set(rowKeyCol(), value);
        return me();
    }

}
