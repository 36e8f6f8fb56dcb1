package io.sparkattention.examples.cli;

import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.classification.BertClassifier;

/**
 * {@code fine-tune}'s options: which go together and their ranges, checked before any file is
 * read; the estimator they configure; and the estimator's param names in its messages as the
 * options the user typed.
 */
final class FineTuneOptions {

    /** The shortest --max-length: [CLS] and [SEP] are two of its tokens. */
    static final int MIN_MAX_LENGTH = 2;

    private FineTuneOptions() {
    }

    /** Checks every option that needs no file and no Spark; settles --text-col's default. */
    static void check(FineTuneCommand c) {
        if (c.onnx != null && c.safetensors != null) {
            throw new BadInputException("--onnx and --safetensors both given: name one model file");
        }
        String file = c.onnx != null ? "--onnx" : c.safetensors != null ? "--safetensors" : null;
        if (c.model != null && file != null) {
            throw new BadInputException("--model and " + file + " both given: a bundled model or a model file, not both");
        }
        if (c.safetensors != null && c.numHeads == null) {
            throw new BadInputException("--safetensors needs --num-heads (no tensor shows the heads)");
        }
        if (file == null && c.numHeads != null) {
            throw new BadInputException("--num-heads goes with --onnx or --safetensors");
        }
        if (c.numHeads != null && c.numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + c.numHeads);
        }
        if (c.safetensors == null && !c.prefix.isEmpty()) {
            throw new BadInputException("--prefix goes with --safetensors");
        }
        if (c.idsCol != null && c.textCol != null) {
            throw new BadInputException("--text-col and --ids-col both given: texts to tokenize or token ids, not both");
        }
        if (c.idsCol != null && c.tokenizer != null) {
            throw new BadInputException("--tokenizer goes with --text-col; --ids-col reads ids as they are");
        }
        if (c.idsCol == null) {
            c.textCol = c.textCol == null ? "text" : c.textCol;
            if (file != null && c.tokenizer == null) {
                throw new BadInputException(file + " with --text-col needs --tokenizer (the model's tokenizer.json), "
                    + "or give --ids-col");
            }
            if (file == null && c.tokenizer != null) {
                throw new BadInputException("--tokenizer goes with --onnx or --safetensors; the bundled model has its "
                    + "own");
            }
        }
        if (c.maxLength < MIN_MAX_LENGTH) {
            throw new BadInputException("--max-length must be >= " + MIN_MAX_LENGTH + " ([CLS] and [SEP] count), got "
                + c.maxLength);
        }
        c.pooling = Choices.check("--pooling", c.pooling, FineTuneCommand.POOLINGS);
        c.solver = Choices.check("--solver", c.solver, FineTuneCommand.SOLVERS);
        if (c.numClasses != 0 && c.numClasses < 2) {
            throw new BadInputException("--num-classes must be >= 2 (or 0: inferred), got " + c.numClasses);
        }
        if (c.trainableLayers < -1) {
            throw new BadInputException("--trainable-layers must be >= -1 (-1: everything), got " + c.trainableLayers);
        }
        positive("--step-size", c.stepSize);
        atLeastZero("--weight-decay", c.weightDecay);
        if ("adam".equals(c.solver) && c.weightDecay > 0) {
            throw new BadInputException("--weight-decay " + c.weightDecay + " goes with --solver adamw; adam has no "
                + "weight decay");
        }
        if (c.warmupSteps < 0) {
            throw new BadInputException("--warmup-steps must be >= 0, got " + c.warmupSteps);
        }
        atLeastZero("--max-grad-norm", c.maxGradNorm);
        if (!(c.dropout >= 0 && c.dropout < 1)) {
            throw new BadInputException("--dropout must be in [0, 1), got " + c.dropout);
        }
        if (c.maxIter < 0) {
            throw new BadInputException("--max-iter must be >= 0, got " + c.maxIter);
        }
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

    private static void positive(String option, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new BadInputException(option + " must be a finite number > 0, got " + value);
        }
    }

    private static void atLeastZero(String option, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new BadInputException(option + " must be a finite number >= 0, got " + value);
        }
    }

    /** The estimator with every option, fine-tuning {@code encoder}. */
    static BertClassifier stage(FineTuneCommand c, BertEncoderModel encoder) {
        BertClassifier stage = new BertClassifier().setEncoder(encoder).setLabelCol(c.labelCol)
            .setNumClasses(c.numClasses).setTrainableLayers(c.trainableLayers).setPooling(c.pooling)
            .setSolver(c.solver).setStepSize(c.stepSize).setWeightDecay(c.weightDecay).setWarmupSteps(c.warmupSteps)
            .setMaxGradNorm(c.maxGradNorm).setDropout(c.dropout).setMaxIter(c.maxIter)
            .setMiniBatchFraction(c.miniBatchFraction).setTol(c.tol);
        if (c.weightCol != null) {
            stage.setWeightCol(c.weightCol);
        }
        if (c.seed != null) {
            stage.setSeed(c.seed);
        }
        if (c.initialWeights != null) {
            stage.setInitialWeightsPath(c.initialWeights);
        }
        return stage;
    }

    /** The estimator's messages name its params; the command line's user knows them as options. */
    static String optionNames(String message) {
        String m = message == null ? "" : message;
        return m.replace("initialWeightsPath: ", "--initial-weights: ").replace("set numClasses", "set --num-classes")
            .replace("trainableLayers is ", "--trainable-layers is ").replace("numClasses is ", "--num-classes is ");
    }
}
