package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.classification.BertClassifier;

/**
 * {@code fine-tune}'s options: which go together and their ranges, checked before any file is
 * read; the estimator they configure; and the estimator's param names in its messages as the
 * options the user typed.
 */
final class FineTuneOptions {

    private FineTuneOptions() {
    }

    /** Checks every option that needs no file and no Spark; settles --text-col's default. */
    static void check(FineTuneCommand c) {
        if (c.idsCol != null && c.textCol != null) {
            throw new BadInputException("--text-col and --ids-col both given: texts to tokenize or token ids, not both");
        }
        if (c.idsCol == null) {
            c.textCol = c.textCol == null ? "text" : c.textCol;
        }
        c.model.check(c.idsCol == null, false);
        if ("keep".equals(c.handleInvalid.strip().toLowerCase(java.util.Locale.ROOT))) {
            throw new BadInputException("--handle-invalid keep: a row without a text or ids has nothing to train on; "
                + "fine-tune takes error or skip");
        }
        c.handleInvalid = Choices.check("--handle-invalid", c.handleInvalid, FineTuneCommand.HANDLE_INVALID);
        c.pooling = Choices.check("--pooling", c.pooling, FineTuneCommand.POOLINGS);
        if (c.numClasses != 0 && c.numClasses < 2) {
            throw new BadInputException("--num-classes must be >= 2 (or 0: inferred), got " + c.numClasses);
        }
        if (c.trainableLayers < -1) {
            throw new BadInputException("--trainable-layers must be >= -1 (-1: everything), got " + c.trainableLayers);
        }
        c.optimiser.check();
        c.step.check();
        if (!(c.miniBatchFraction > 0 && c.miniBatchFraction <= 1)) {
            throw new BadInputException("--mini-batch-fraction must be in (0, 1], got " + c.miniBatchFraction);
        }
        atLeastZero("--tol", c.tol);
        for (String[] col : new String[][] {{"--text-col", c.textCol}, {"--ids-col", c.idsCol},
            {"--label-col", c.labelCol}, {"--weight-col", c.weightCol}}) {
            if (col[1] != null && col[1].isBlank()) {
                throw new BadInputException(col[0] + ": the column name is empty");
            }
        }
        String features = c.idsCol != null ? c.idsCol : c.textCol;
        if (features.equals(c.labelCol)) {
            throw new BadInputException("the label column '" + c.labelCol + "' is also the "
                + (c.idsCol != null ? "ids" : "text") + " column: give them different columns");
        }
    }

    private static void atLeastZero(String option, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new BadInputException(option + " must be a finite number >= 0, got " + value);
        }
    }

    /** The estimator with every option, fine-tuning {@code encoder}. */
    static BertClassifier stage(FineTuneCommand c, BertEncoderModel encoder) {
        BertClassifier stage = c.step.apply(c.optimiser.apply(new BertClassifier())).setEncoder(encoder)
            .setLabelCol(c.labelCol).setNumClasses(c.numClasses).setTrainableLayers(c.trainableLayers)
            .setPooling(c.pooling).setMiniBatchFraction(c.miniBatchFraction).setTol(c.tol);
        if (c.weightCol != null) {
            stage.setWeightCol(c.weightCol);
        }
        stage.setSeed(c.seed);
        if (c.initialWeights != null || c.modelHead != null) {
            stage.setInitialWeightsPath(c.initialWeights != null ? c.initialWeights : c.modelHead);
        }
        return stage;
    }

    /** The estimator's messages name its params; the command line's user knows them as options. */
    static String optionNames(String message) {
        String m = message == null ? "" : message;
        return m.replace("initialWeightsPath: ", "--initial-weights: ")
            .replace("trainableLayers is ", "--trainable-layers is ").replaceAll("\\bnumClasses\\b", "--num-classes");
    }
}
