package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code fine-tune} saved, as {@code embed --model DIR} uses it: the fine-tuned encoder (from
 * the classifier's {@code data/model.safetensors}) and, for a {@code PipelineModel} of the
 * tokenizer and the classifier, its tokenizer ({@code data/tokenizer.json}). Read from the files,
 * without Spark.
 */
final class FineTunedModel {

    /** The saved classes this reads. */
    static final String CLASSIFIER = BertClassificationModel.class.getName();
    static final String TOKENIZER = HuggingFaceTokenizer.class.getName();

    final BertEncoderModel encoder;
    /** The pipeline's tokenizer, or null for a classifier saved alone. */
    final HuggingFaceTokenizer tokenizer;

    private FineTunedModel(BertEncoderModel encoder, HuggingFaceTokenizer tokenizer) {
        this.encoder = encoder;
        this.tokenizer = tokenizer;
    }

    /** Whether {@code name} names a directory rather than a bundled model. */
    static boolean isDirectory(String name) {
        return name != null && Files.isDirectory(Path.of(name));
    }

    /**
     * Reads a fine-tune output.
     *
     * @throws BadInputException naming the directory when it holds no fine-tuned classifier
     */
    static FineTunedModel read(String dir) {
        SavedModel saved = SavedModel.read(dir);
        String classifier = null;
        String tokenizer = null;
        for (SavedModel stage : saved.isPipeline() ? saved.stages() : java.util.List.of(saved)) {
            if (stage.className.equals(CLASSIFIER)) {
                classifier = stage.path;
            } else if (stage.className.equals(TOKENIZER)) {
                tokenizer = stage.path;
            }
        }
        if (classifier == null) {
            throw new BadInputException("--model " + dir + " is a saved " + saved.className + ", not a fine-tune output "
                + "(a " + CLASSIFIER + ", alone or in a pipeline)");
        }
        try {
            BertEncoderModel encoder = BertClassificationModel.fromSafeTensors(
                Path.of(classifier, "data", "model.safetensors").toString(), "", 0, null).encoderModel();
            HuggingFaceTokenizer tok = tokenizer == null ? null
                : HuggingFaceTokenizer.fromPath(Path.of(tokenizer, "data", "tokenizer.json").toString());
            return new FineTunedModel(encoder, tok);
        } catch (RuntimeException e) {
            throw new BadInputException("--model " + dir + ": " + ErrorReporting.oneLine(e.getMessage()), e);
        }
    }
}
