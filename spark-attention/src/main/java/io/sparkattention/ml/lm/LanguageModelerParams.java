package io.sparkattention.ml.lm;

import io.sparkattention.ml.training.TrainingParamSet;
import io.sparkattention.ml.training.TransformerTrainingParams;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

/**
 * {@link GptLanguageModeler}'s params: the training engine's shared ones
 * ({@link TransformerTrainingParams}; {@code initialWeightsPath} names the model directory to
 * continue training) and its own ({@link LanguageModelerParamSet}): the rows (texts or ids), a new
 * model's shape and tokenizer, how rows become sequences, the validation loss, the schedule's
 * shape, the rows per step and the training layout. One accessor per param named like it;
 * setters return the stage.
 *
 * @param <T> the stage type, returned by the setters
 */
public interface LanguageModelerParams<T extends LanguageModelerParams<T>> extends TransformerTrainingParams<T> {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    LanguageModelerParamSet modelerParamSet();

    /**
     * The shared training params' objects, made with the family's own ({@link LanguageModelerParamSet#FAMILY}):
     * {@code initialWeightsPath} is the model directory to continue training.
     *
     * @return the param objects, created with the stage
     */
    @Override
    default TrainingParamSet trainingParamSet() {
        return modelerParamSet().training;
    }

    @SuppressWarnings("unchecked")
    private T me() {
        return (T) this;
    }

    /**
     * The column of texts, tokenized with the model's tokenizer (string); used when idsCol is empty.
     *
     * @return the param
     */
    default Param<String> textCol() {
        return modelerParamSet().textCol;
    }

    /** @return the value of {@link #textCol()} (or its default) */
    default String getTextCol() {
        return getOrDefault(textCol());
    }

    /**
     * Sets {@link #textCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setTextCol(String value) {
        set(textCol(), value);
        return me();
    }

    /**
     * A column of token ids (array<int> or array<bigint>) taken as they are instead of textCol; empty: textCol.
     *
     * @return the param
     */
    default Param<String> idsCol() {
        return modelerParamSet().idsCol;
    }

    /** @return the value of {@link #idsCol()} (or its default) */
    default String getIdsCol() {
        return getOrDefault(idsCol());
    }

    /**
     * Sets {@link #idsCol()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setIdsCol(String value) {
        set(idsCol(), value);
        return me();
    }

    /**
     * A new model's blocks (n_layer).
     *
     * @return the param
     */
    default IntParam nLayer() {
        return modelerParamSet().nLayer;
    }

    /** @return the value of {@link #nLayer()} (or its default) */
    default int getNLayer() {
        return (int) getOrDefault(nLayer());
    }

    /**
     * Sets {@link #nLayer()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNLayer(int value) {
        set(nLayer(), value);
        return me();
    }

    /**
     * A new model's width (n_embd), divisible by nHead.
     *
     * @return the param
     */
    default IntParam nEmbd() {
        return modelerParamSet().nEmbd;
    }

    /** @return the value of {@link #nEmbd()} (or its default) */
    default int getNEmbd() {
        return (int) getOrDefault(nEmbd());
    }

    /**
     * Sets {@link #nEmbd()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNEmbd(int value) {
        set(nEmbd(), value);
        return me();
    }

    /**
     * A new model's attention heads (n_head).
     *
     * @return the param
     */
    default IntParam nHead() {
        return modelerParamSet().nHead;
    }

    /** @return the value of {@link #nHead()} (or its default) */
    default int getNHead() {
        return (int) getOrDefault(nHead());
    }

    /**
     * Sets {@link #nHead()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNHead(int value) {
        set(nHead(), value);
        return me();
    }

    /**
     * Ids per packed block; a new model's positions (n_positions); at most a loaded model's positions.
     *
     * @return the param
     */
    default IntParam blockSize() {
        return modelerParamSet().blockSize;
    }

    /** @return the value of {@link #blockSize()} (or its default) */
    default int getBlockSize() {
        return (int) getOrDefault(blockSize());
    }

    /**
     * Sets {@link #blockSize()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setBlockSize(int value) {
        set(blockSize(), value);
        return me();
    }

    /**
     * A new model's tokenizer: bytes (256 ids, UTF-8 bytes), gpt2 (GPT-2's 50,257-id BPE) or a tokenizer.json path; its vocabulary is the model's.
     *
     * @return the param
     */
    default Param<String> tokenizer() {
        return modelerParamSet().tokenizer;
    }

    /** @return the value of {@link #tokenizer()} (or its default) */
    default String getTokenizer() {
        return getOrDefault(tokenizer());
    }

    /**
     * Sets {@link #tokenizer()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setTokenizer(String value) {
        set(tokenizer(), value);
        return me();
    }

    /**
     * Join the rows' ids (with the end-of-text id between rows when the tokenizer has one) and cut them into blocks of blockSize, the last partial block dropped; false: each row is one sequence, at most the model's positions long.
     *
     * @return the param
     */
    default BooleanParam packing() {
        return modelerParamSet().packing;
    }

    /** @return the value of {@link #packing()} (or its default) */
    default boolean getPacking() {
        return (boolean) getOrDefault(packing());
    }

    /**
     * Sets {@link #packing()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setPacking(boolean value) {
        set(packing(), value);
        return me();
    }

    /**
     * The fraction of the sequences held out for the validation loss, evenly spread (k held out when floor((k+1)F) > floor(kF)), in [0, 1); 0: none unless fit is given a validation set.
     *
     * @return the param
     */
    default DoubleParam validationFraction() {
        return modelerParamSet().validationFraction;
    }

    /** @return the value of {@link #validationFraction()} (or its default) */
    default double getValidationFraction() {
        return (double) getOrDefault(validationFraction());
    }

    /**
     * Sets {@link #validationFraction()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setValidationFraction(double value) {
        set(validationFraction(), value);
        return me();
    }

    /**
     * The validation loss is computed before steps 0, N, 2N, ... and after the last; 0: after the last step only.
     *
     * @return the param
     */
    default IntParam evalEvery() {
        return modelerParamSet().evalEvery;
    }

    /** @return the value of {@link #evalEvery()} (or its default) */
    default int getEvalEvery() {
        return (int) getOrDefault(evalEvery());
    }

    /**
     * Sets {@link #evalEvery()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setEvalEvery(int value) {
        set(evalEvery(), value);
        return me();
    }

    /**
     * The learning rate after warmupSteps: linear (to 0 at maxIter) or cosine (half a cosine to 0 at maxIter, Hugging Face's get_cosine_schedule_with_warmup).
     *
     * @return the param
     */
    default Param<String> schedule() {
        return modelerParamSet().schedule;
    }

    /** @return the value of {@link #schedule()} (or its default) */
    default String getSchedule() {
        return getOrDefault(schedule());
    }

    /**
     * Sets {@link #schedule()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setSchedule(String value) {
        set(schedule(), value);
        return me();
    }

    /**
     * The sequences a step samples on average: miniBatchFraction becomes min(1, rowsPerStep / sequences); 0: miniBatchFraction as set.
     *
     * @return the param
     */
    default IntParam rowsPerStep() {
        return modelerParamSet().rowsPerStep;
    }

    /** @return the value of {@link #rowsPerStep()} (or its default) */
    default int getRowsPerStep() {
        return (int) getOrDefault(rowsPerStep());
    }

    /**
     * Sets {@link #rowsPerStep()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setRowsPerStep(int value) {
        set(rowsPerStep(), value);
        return me();
    }

    /**
     * The training sequences are laid out in this many partitions of consecutive keys; a fit's bits depend on it, never on the input's partitioning; 0: the cluster's default parallelism.
     *
     * @return the param
     */
    default IntParam numPartitions() {
        return modelerParamSet().numPartitions;
    }

    /** @return the value of {@link #numPartitions()} (or its default) */
    default int getNumPartitions() {
        return (int) getOrDefault(numPartitions());
    }

    /**
     * Sets {@link #numPartitions()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNumPartitions(int value) {
        set(numPartitions(), value);
        return me();
    }
}
