package io.sparkattention.ml;

import org.apache.spark.ml.util.MLReader;

/**
 * The name {@link io.sparkattention.ml.feature.BertEncoderModel} was saved under before it moved
 * to {@code ml.feature}: MLlib's {@code PipelineModel.load} finds a saved stage's reader by the
 * class name in its metadata, so this class answers for the old name and reads such a stage as
 * the model it is now. Nothing else uses it.
 *
 * @deprecated use {@link io.sparkattention.ml.feature.BertEncoderModel}; saved models load as it
 */
@Deprecated
public final class BertEncoderModel {

    private BertEncoderModel() {
    }

    /**
     * The reader of a model saved under this name (or the new one).
     *
     * @return {@link io.sparkattention.ml.feature.BertEncoderModel#read()}
     */
    public static MLReader<io.sparkattention.ml.feature.BertEncoderModel> read() {
        return io.sparkattention.ml.feature.BertEncoderModel.read();
    }

    /**
     * Loads a model saved under this name (or the new one).
     *
     * @param path the directory it was saved to
     * @return the model
     */
    public static io.sparkattention.ml.feature.BertEncoderModel load(String path) {
        return read().load(path);
    }
}
