package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.ml.lm.GptLanguageModeler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * {@code train-lm}'s options: which go together and their ranges, checked before any file is read
 * ({@link #check}); the model directory and tokenizer file they name, read before Spark starts
 * ({@link #prepare}); the estimator they configure ({@link #stage}); and the estimator's param
 * names in its messages as the options the user typed ({@link #optionNames}).
 */
final class TrainLmOptions {

    /** The shipped tokenizers' names for --tokenizer. */
    static final List<String> SHIPPED_TOKENIZERS = List.of("bytes", "gpt2");

    private TrainLmOptions() {
    }

    /** Checks every option that needs no file and no Spark; settles --text-col's default. */
    static void check(TrainLmCommand c) {
        if (c.idsCol != null && c.textCol != null) {
            throw new BadInputException("--text-col and --ids-col both given: texts to tokenize or token ids, not both");
        }
        for (String[] col : new String[][] {{"--text-col", c.textCol}, {"--ids-col", c.idsCol}}) {
            if (col[1] != null && col[1].isBlank()) {
                throw new BadInputException(col[0] + ": the column name is empty");
            }
        }
        if (c.idsCol == null && c.textCol == null) {
            c.textCol = "text";
        }
        if (c.model != null && (c.nLayer != null || c.nEmbd != null || c.nHead != null || c.tokenizer != null)) {
            throw new BadInputException("--model " + c.model + " continues a model with its own shape and tokenizer: "
                + "--n-layer, --n-embd, --n-head and --tokenizer describe a new one; give one or the other");
        }
        atLeast("--n-layer", c.nLayer, 1);
        atLeast("--n-embd", c.nEmbd, 1);
        atLeast("--n-head", c.nHead, 1);
        atLeast("--block-size", c.blockSize, 2);
        if (c.model == null && c.nEmbd != null && c.nHead != null && c.nEmbd % c.nHead != 0) {
            throw new BadInputException("--n-embd " + c.nEmbd + " is not divisible by --n-head " + c.nHead);
        }
        if (c.tokenizer != null && !SHIPPED_TOKENIZERS.contains(c.tokenizer) && !Files.isRegularFile(Paths.get(c.tokenizer))) {
            throw new BadInputException("--tokenizer " + c.tokenizer + ": no such file (bytes, gpt2 or a tokenizer.json)");
        }
        c.packing = Choices.check("--packing", c.packing, List.of("true", "false"));
        if (!(c.validationFraction >= 0 && c.validationFraction < 1)) {
            throw new BadInputException("--validation-fraction must be in [0, 1), got " + c.validationFraction);
        }
        atLeast("--eval-every", c.evalEvery, 0);
        if (c.evalEvery > 0 && c.validationFraction == 0) {
            throw new BadInputException("--eval-every " + c.evalEvery + " needs held-out sequences: give "
                + "--validation-fraction");
        }
        c.optimiser.check();
        c.schedule = Choices.check("--schedule", c.schedule, List.of("linear", "cosine"));
        c.step.check();
        if (c.rowsPerStep != null && c.miniBatchFraction != null) {
            throw new BadInputException("--rows-per-step and --mini-batch-fraction both given: give one");
        }
        atLeast("--rows-per-step", c.rowsPerStep, 1);
        if (c.miniBatchFraction != null && !(c.miniBatchFraction > 0 && c.miniBatchFraction <= 1)) {
            throw new BadInputException("--mini-batch-fraction must be in (0, 1], got " + c.miniBatchFraction);
        }
        finiteAtLeastZero("--tol", c.tol);
    }

    /** The tokenizer file --tokenizer names, or null for a shipped one. */
    static String tokenizerFile(TrainLmCommand c) {
        return c.tokenizer == null || SHIPPED_TOKENIZERS.contains(c.tokenizer) ? null : c.tokenizer;
    }

    /** Reads --model (checked against --text-col and --block-size) or the --tokenizer file, before Spark starts. */
    static void prepare(TrainLmCommand c) {
        if (c.model != null) {
            if (!Files.isDirectory(Paths.get(c.model))) {
                throw new BadInputException("--model " + c.model + " is not a directory (a Hugging Face GPT-2 directory: "
                    + "config.json and model.safetensors)");
            }
            try {
                c.start = GptLanguageModel.fromDirectory(c.model);
            } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
                String m = ErrorReporting.oneLine(e.getMessage());
                throw new BadInputException(m.contains(c.model) ? "--model: " + m : "--model " + c.model + ": " + m, e);
            }
            GptConfig config = c.start.decoder().config();
            if (c.textCol != null && !c.start.hasTokenizer()) {
                throw new BadInputException("--model " + c.model + " has no tokenizer.json, which --text-col needs: give "
                    + "token ids with --ids-col");
            }
            if (c.blockSize != null && c.blockSize > config.positions()) {
                throw new BadInputException("--block-size " + c.blockSize + " is more than the " + config.positions()
                    + " positions (n_positions) of --model " + c.model);
            }
        }
        String file = tokenizerFile(c);
        if (file != null) {
            try {
                JsonNode root = new ObjectMapper().readTree(Path.of(file).toFile());
                if (!root.path("model").path("vocab").isObject()) {
                    throw new BadInputException("--tokenizer " + file + " is not a Hugging Face tokenizer.json (no "
                        + "model.vocab)");
                }
            } catch (IOException e) {
                throw new BadInputException("--tokenizer " + file + " is not a Hugging Face tokenizer.json: "
                    + ErrorReporting.oneLine(e.getMessage()), e);
            }
        }
    }

    /** The estimator with every option. */
    static GptLanguageModeler stage(TrainLmCommand c) {
        GptLanguageModeler stage = c.step.apply(c.optimiser.apply(new GptLanguageModeler()))
            .setPacking(Boolean.parseBoolean(c.packing)).setValidationFraction(c.validationFraction)
            .setEvalEvery(c.evalEvery).setSchedule(c.schedule).setTol(c.tol);
        if (c.idsCol != null) {
            stage.setIdsCol(c.idsCol);
        } else {
            stage.setTextCol(c.textCol);
        }
        if (c.model != null) {
            stage.setInitialWeightsPath(c.model);
        }
        if (c.nLayer != null) {
            stage.setNLayer(c.nLayer);
        }
        if (c.nEmbd != null) {
            stage.setNEmbd(c.nEmbd);
        }
        if (c.nHead != null) {
            stage.setNHead(c.nHead);
        }
        if (c.blockSize != null) {
            stage.setBlockSize(c.blockSize);
        }
        if (c.tokenizer != null) {
            stage.setTokenizer(c.tokenizer);
        }
        if (c.rowsPerStep != null) {
            stage.setRowsPerStep(c.rowsPerStep);
        }
        if (c.miniBatchFraction != null) {
            stage.setMiniBatchFraction(c.miniBatchFraction);
        }
        if (c.seed != null) {
            stage.setSeed(c.seed);
        }
        return stage;
    }

    /** The estimator's messages name its params; the command line's user knows them as options. */
    static String optionNames(String message) {
        String m = message == null ? "" : message;
        return m.replaceAll("\\bblockSize\\b", "--block-size").replaceAll("\\bvalidationFraction\\b",
            "--validation-fraction").replaceAll("\\bevalEvery\\b", "--eval-every").replaceAll("\\btextCol\\b",
            "--text-col").replaceAll("\\bidsCol\\b", "--ids-col").replaceAll("\\binitialWeightsPath\\b", "--model")
            .replaceAll("\\bnEmbd\\b", "--n-embd").replaceAll("\\bnHead\\b", "--n-head");
    }

    private static void atLeast(String option, Integer value, int least) {
        if (value != null && value < least) {
            throw new BadInputException(option + " must be >= " + least + ", got " + value);
        }
    }

    private static void finiteAtLeastZero(String option, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new BadInputException(option + " must be a finite number >= 0, got " + value);
        }
    }
}
