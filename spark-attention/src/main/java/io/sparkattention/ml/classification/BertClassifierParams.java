package io.sparkattention.ml.classification;

import io.sparkattention.ml.training.TrainingParamSet;
import io.sparkattention.ml.training.TransformerTrainingParams;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

/**
 * The params {@link BertClassifier} and {@link BertClassificationModel} add to MLlib's
 * probabilistic classifier params: the encoder to start from, what trains, the pooling and the
 * training rows' layout, beside the training engine's shared params
 * ({@link TransformerTrainingParams}: the row weight, the solver {@code adamw} or {@code adam},
 * learning rate, warmup, clipping, dropout, steps, sampling, seed, {@code tol} and the head to
 * start from). One accessor per param named like it; setters return the stage itself ({@code T}).
 *
 * @param <T> the stage type, returned by the setters
 */
public interface BertClassifierParams<T extends BertClassifierParams<T>> extends TransformerTrainingParams<T> {

    /**
     * The stage's Param objects (internal; not a Param itself, so Spark does not list it).
     *
     * @return the param objects, created with the stage
     */
    BertClassifierParamSet bertParamSet();

    /**
     * The shared training params' objects, made with the family's own ({@link BertClassifierParamSet#FAMILY}).
     *
     * @return the param objects, created with the stage
     */
    @Override
    default TrainingParamSet trainingParamSet() {
        return bertParamSet().training;
    }

    @SuppressWarnings("unchecked")
    private T self() {
        return (T) this;
    }

    /**
     * The bundled encoder to fine-tune (default {@code all-minilm-l6-v2}) when {@code encoderPath}
     * is empty and no encoder model is set.
     *
     * @return the param
     */
    default Param<String> modelName() {
        return bertParamSet().modelName;
    }

    /** @return the value of {@link #modelName()} (or its default) */
    default String getModelName() {
        return getOrDefault(modelName());
    }

    /**
     * Sets {@link #modelName()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setModelName(String value) {
        set(modelName(), value);
        return self();
    }

    /**
     * The encoder to fine-tune: an ONNX file ({@code .onnx}) or a Hugging Face {@code BertModel}
     * safetensors file on any Hadoop file system; empty (default): {@code modelName}.
     *
     * @return the param
     */
    default Param<String> encoderPath() {
        return bertParamSet().encoderPath;
    }

    /** @return the value of {@link #encoderPath()} (or its default) */
    default String getEncoderPath() {
        return getOrDefault(encoderPath());
    }

    /**
     * Sets {@link #encoderPath()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setEncoderPath(String value) {
        set(encoderPath(), value);
        return self();
    }

    /**
     * The tensors' name prefix in a safetensors {@code encoderPath} ({@code bert.}), or empty (default).
     *
     * @return the param
     */
    default Param<String> encoderPrefix() {
        return bertParamSet().encoderPrefix;
    }

    /** @return the value of {@link #encoderPrefix()} (or its default) */
    default String getEncoderPrefix() {
        return getOrDefault(encoderPrefix());
    }

    /**
     * Sets {@link #encoderPrefix()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setEncoderPrefix(String value) {
        set(encoderPrefix(), value);
        return self();
    }

    /**
     * The encoder's attention heads, which a safetensors file does not record; 0 (default): from
     * the ONNX graph or the file's metadata.
     *
     * @return the param
     */
    default IntParam encoderNumHeads() {
        return bertParamSet().encoderNumHeads;
    }

    /** @return the value of {@link #encoderNumHeads()} (or its default) */
    default int getEncoderNumHeads() {
        return (Integer) getOrDefault(encoderNumHeads());
    }

    /**
     * Sets {@link #encoderNumHeads()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setEncoderNumHeads(int value) {
        set(encoderNumHeads(), value);
        return self();
    }

    /**
     * The top N encoder layers train with the head; 0: the head only (a fit costs one forward pass
     * per row plus the head's steps); −1 (default): everything, the embeddings too.
     *
     * @return the param
     */
    default IntParam trainableLayers() {
        return bertParamSet().trainableLayers;
    }

    /** @return the value of {@link #trainableLayers()} (or its default) */
    default int getTrainableLayers() {
        return (Integer) getOrDefault(trainableLayers());
    }

    /**
     * Sets {@link #trainableLayers()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setTrainableLayers(int value) {
        set(trainableLayers(), value);
        return self();
    }

    /**
     * How a row's token states become one vector: {@code mean} (default, over every token) or
     * {@code cls} (the first token; also read as {@code first}, the attention classifier's name for it).
     *
     * @return the param
     */
    default Param<String> pooling() {
        return bertParamSet().pooling;
    }

    /** @return the value of {@link #pooling()} (or its default) */
    default String getPooling() {
        return getOrDefault(pooling());
    }

    /**
     * Sets {@link #pooling()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setPooling(String value) {
        set(pooling(), value);
        return self();
    }

    /**
     * The partitions the training rows are laid out in (consecutive rows each), one task per
     * partition and step; the sums' order, and so a fit's bits, depend on it and never on the
     * input's partitioning. 0 (default): the cluster's default parallelism at fit time.
     *
     * @return the param
     */
    default IntParam numPartitions() {
        return bertParamSet().numPartitions;
    }

    /** @return the value of {@link #numPartitions()} (or its default) */
    default int getNumPartitions() {
        return (Integer) getOrDefault(numPartitions());
    }

    /**
     * Sets {@link #numPartitions()}.
     *
     * @param value the new value
     * @return this stage
     */
    default T setNumPartitions(int value) {
        set(numPartitions(), value);
        return self();
    }
}
