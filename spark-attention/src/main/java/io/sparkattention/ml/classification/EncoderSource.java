package io.sparkattention.ml.classification;

import io.sparkattention.bert.BertEncoder;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.HadoopSafeTensors;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Where a {@link BertClassifier} takes its encoder from, in this order: the model given to
 * {@code setEncoder}, {@code encoderPath} (an ONNX file, by its {@code .onnx} suffix, else a
 * Hugging Face {@code BertModel} safetensors file under {@code encoderPrefix}), or the bundled
 * {@code modelName}; and the estimator's files: the params as MLlib metadata, plus the given
 * encoder model under {@code path/encoder} when there is one.
 */
final class EncoderSource {

    /** The directory of a saved estimator's encoder model. */
    static final String ENCODER_DIR = "encoder";

    private EncoderSource() {
    }

    /**
     * The encoder the estimator's settings name.
     *
     * @throws IllegalArgumentException naming the param and file (or bundled name) that fails
     */
    static BertEncoder resolve(BertClassifier stage, Configuration conf) {
        if (stage.getEncoder() != null) {
            return stage.getEncoder().encoder();
        }
        String path = stage.getEncoderPath();
        try {
            if (path.isEmpty()) {
                return BertEncoderModel.pretrained(stage.getModelName()).encoder();
            }
            if (path.toLowerCase(Locale.ROOT).endsWith(".onnx")) {
                return BertEncoderModel.fromOnnx(path, stage.getEncoderNumHeads()).encoder();
            }
            int heads = stage.getEncoderNumHeads();
            if (heads == 0) {
                SafeTensors file = HadoopSafeTensors.read(path, conf);
                if (file.metadata().get(io.sparkattention.io.BertModelFiles.META_HEADS) == null) {
                    throw new IllegalArgumentException("encoderNumHeads: " + path + " does not record the encoder's "
                        + "attention heads; set encoderNumHeads");
                }
                heads = BertModelIO.metadataHeads(file, path);
            }
            return BertEncoderModel.fromSafeTensors(path, stage.getEncoderPrefix(), heads).encoder();
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException((path.isEmpty() ? "modelName " + stage.getModelName()
                : "encoderPath " + path) + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            String where = path.isEmpty() ? "modelName" : "encoderPath";
            throw e.getMessage() != null && e.getMessage().startsWith(where) ? e
                : new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    static MLWriter writer(BertClassifier stage) {
        return new MLWriter() {
            @Override
            public void saveImpl(String path) {
                ParamsMetadata.save(stage, path, sparkSession());
                if (stage.getEncoder() != null) {
                    try {
                        stage.getEncoder().write().save(new Path(path, ENCODER_DIR).toString());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        };
    }

    static MLReader<BertClassifier> reader() {
        return new MLReader<>() {
            @Override
            public BertClassifier load(String path) {
                BertClassifier stage = ParamsMetadata.load(path, sparkSession(), BertClassifier.class.getName(),
                    BertClassifier::new);
                Path encoder = new Path(path, ENCODER_DIR);
                try {
                    FileSystem fs = encoder.getFileSystem(sparkSession().sparkContext().hadoopConfiguration());
                    if (fs.exists(encoder)) {
                        stage.setEncoder(BertEncoderModel.load(encoder.toString()));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return stage;
            }
        };
    }
}
