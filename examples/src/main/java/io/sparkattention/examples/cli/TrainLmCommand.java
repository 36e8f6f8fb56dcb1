package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.ml.lm.GptLanguageModeler;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code spark-attention train-lm}: trains a GPT-2-style causal language model
 * ({@link GptLanguageModeler}) on texts or token ids — a new model or one continued from a Hugging
 * Face GPT-2 directory — prints one JSON line per step as {@code train} does, with the validation
 * loss on the lines where it was computed, and writes a model directory ({@code config.json},
 * {@code model.safetensors}, {@code tokenizer.json}) that {@code perplexity}, {@code generate} and
 * {@code GPT2LMHeadModel.from_pretrained} load. Every option and the model's files are checked
 * before Spark starts ({@link TrainLmOptions}); every row before the first step.
 */
@Command(name = "train-lm", mixinStandardHelpOptions = true, sortOptions = false,
    resourceBundle = "io.sparkattention.examples.cli.TrainLmCommand",
    description = {"Trains a GPT-2-style causal language model (GPT-2's blocks, the head tied to the token embedding): "
        + "a new one of --n-layer blocks, --n-embd wide with --n-head heads and --block-size positions over a "
        + "tokenizer's vocabulary (bytes: UTF-8 bytes, 256 ids; gpt2: GPT-2's BPE; or a tokenizer.json), initialised "
        + "as GPT-2 from --seed; or one continued from --model DIR. Loss: the mean -log-likelihood of every predicted "
        + "token (nats). AdamW with GPT-2's groups (decay on the 2-D tensors only), warmup, linear or cosine decay, "
        + "global-norm clipping, dropout where GPT-2 places it.",
        "Input: one row per text (--text-col, tokenized with the model's tokenizer) or per sequence of token ids "
            + "(--ids-col). With --packing true (the default) the rows' ids, in input order and joined by the "
            + "tokenizer's end-of-text id (GPT-2's <|endoftext|>; none for bytes), are cut into blocks of --block-size "
            + "ids, the last partial block dropped; with false each row is one sequence.",
        "stdout: one JSON line per step, {\"iteration\": i, \"loss\": ...} for i = 0 ... T: the loss of step i's "
            + "sample (dropout on) before the step, the last line the loss over every training sequence at the final "
            + "weights (no dropout); lines where the validation loss was computed also carry \"val_loss\". Logs go to "
            + "stderr.",
        "Output: the model directory (config.json, model.safetensors, tokenizer.json), for perplexity --model and "
            + "generate --model.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or option; nothing left at "
            + "--output or --export-pytorch); 1 internal error."})
final class TrainLmCommand extends TableCommand {

    @Option(names = "--model", paramLabel = "DIR",
        description = "Continue training this Hugging Face GPT-2 directory (config.json, model.safetensors, and "
            + "tokenizer.json for --text-col) instead of a new model.")
    String model;

    @Option(names = "--n-layer", paramLabel = "L", description = "A new model's blocks (default 6).")
    Integer nLayer;

    @Option(names = "--n-embd", paramLabel = "E", description = "A new model's width, divisible by --n-head (default 384).")
    Integer nEmbd;

    @Option(names = "--n-head", paramLabel = "H", description = "A new model's attention heads (default 6).")
    Integer nHead;

    @Option(names = "--block-size", paramLabel = "B",
        description = "Ids per packed block, >= 2; a new model's positions (default 256; with --model its positions, "
            + "which B may not exceed).")
    Integer blockSize;

    @Option(names = "--tokenizer", paramLabel = "T",
        description = "A new model's tokenizer: bytes (the default), gpt2, or a tokenizer.json file.")
    String tokenizer;

    @Option(names = "--text-col", paramLabel = "COL",
        description = "The column of texts (default text, unless --ids-col).")
    String textCol;

    @Option(names = "--ids-col", paramLabel = "COL", description = "A column of token ids, taken as they are.")
    String idsCol;

    @Option(names = "--packing", defaultValue = "true", paramLabel = "true|false",
        description = "Join the rows into blocks of --block-size (default ${DEFAULT-VALUE}); false: each row one "
            + "sequence, at most the model's positions long.")
    String packing;

    @Option(names = "--validation-fraction", defaultValue = "0", paramLabel = "F",
        description = "Hold out this fraction of the sequences, evenly spread (0.1: every 10th), for the validation "
            + "loss, in [0, 1) (default ${DEFAULT-VALUE}: none).")
    double validationFraction;

    @Option(names = "--eval-every", defaultValue = "0", paramLabel = "N",
        description = "The validation loss before steps 0, N, 2N, ... and after the last (default ${DEFAULT-VALUE}: "
            + "after the last only; needs --validation-fraction).")
    int evalEvery;

    /** --solver, --step-size, --weight-decay, --warmup-steps (their words in TrainLmCommand.properties). */
    @Mixin
    OptimiserOptions optimiser;

    @Option(names = "--schedule", defaultValue = "linear", paramLabel = "linear|cosine",
        description = "After warmup, decay to 0 at --max-iter linearly or along half a cosine (default "
            + "${DEFAULT-VALUE}).")
    String schedule;

    /** --max-grad-norm, --dropout, --max-iter (dropout's words in TrainLmCommand.properties). */
    @Mixin
    StepOptions step;

    @Option(names = "--rows-per-step", paramLabel = "R",
        description = "Sequences a step samples on average, >= 1 (the fraction R / sequences, by (--seed, step, "
            + "sequence)).")
    Integer rowsPerStep;

    @Option(names = "--mini-batch-fraction", paramLabel = "F",
        description = "Fraction of the sequences each step samples, in (0, 1] (default 1: every sequence).")
    Double miniBatchFraction;

    @Option(names = "--seed", paramLabel = "S",
        description = "Seed of a new model's weights, the sampling and the dropout (default: the estimator's own).")
    Long seed;

    @Option(names = "--tol", defaultValue = "0", paramLabel = "X",
        description = "Stop early, >= 0: before step i >= 10, when the step losses improved by less than X, relative, "
            + "over the last 10 steps (default ${DEFAULT-VALUE}: run --max-iter steps).")
    double tol;

    @Option(names = "--export-pytorch", paramLabel = "DIR",
        description = "Also write config.json and model.safetensors in Hugging Face GPT-2 names (no prefix, the head "
            + "tied) here (checked like --output).")
    String exportPyTorch;

    /** The model in --model, read before Spark starts; null for a new model. */
    GptLanguageModel start;
    private StepLines lines;

    @Override
    void validate() {
        TrainLmOptions.check(this);
    }

    @Override
    Outputs outputs() {
        return output.plan(OutputKind.directory()).add("--export-pytorch", exportPyTorch, OutputKind.directory())
            .localOnly().input("--model", model).input("--tokenizer", TrainLmOptions.tokenizerFile(this));
    }

    /** Reads --model and checks the options against it (a tokenizer for texts, --block-size within its positions). */
    @Override
    void prepare() {
        TrainLmOptions.prepare(this);
    }

    @Override
    Map<String, ColumnKind> columns(SparkSession spark) {
        return Map.of();
    }

    @Override
    void run(Run run) throws IOException {
        InputTable table = run.table;
        String column = idsCol != null ? idsCol : textCol;
        if (!table.has(column)) {
            throw new BadInputException("--input " + in.input + " has no column " + column + " ("
                + (idsCol != null ? "--ids-col" : "--text-col") + "); its columns: " + table.columnList());
        }
        GptLanguageModeler stage = TrainLmOptions.stage(this).setNumPartitions(table.rows.rdd().getNumPartitions());
        lines = new StepLines(System.out);
        stage.setTrainingListener(lines::step).setValidationListener((i, loss) -> lines.add("val_loss", loss));
        // The rows keep the input's order, so the stage's "row N" is the record's position in the input.
        GptLanguageModel fitted = stage.fit(table.rows.drop(table.rowIndexColumn));
        lines.stop();
        write(fitted, run.out.main().localPath(), true);
        if (exportPyTorch != null) {
            write(fitted, run.out.get("--export-pytorch").localPath(), false);
        }
    }

    /** A Hugging Face GPT-2 directory: config.json, model.safetensors and, with {@code tokenizer}, tokenizer.json. */
    private static void write(GptLanguageModel model, Path dir, boolean tokenizer) throws IOException {
        Files.createDirectories(dir);
        GptModelFiles.write(model.decoder(), dir);
        if (tokenizer && model.hasTokenizer()) {
            Files.write(dir.resolve(GptModelFiles.TOKENIZER), model.tokenizerJson());
        }
    }

    /** The stage's errors name its params and the row by its position from 1: as options, and by file and line. */
    @Override
    Exception failure(Exception e, InputTable table) {
        if (lines != null) {
            lines.stop();
        }
        if (table != null && e instanceof IllegalArgumentException && !(e instanceof BadInputException)) {
            return table.records(new BadInputException(TrainLmOptions.optionNames(e.getMessage()), e),
                TrainCommand.FIRST_TRAINING_ROW);
        }
        BadInputException record = BadRecords.describe(e, table);
        if (record != null) {
            return record;
        }
        Exception failure = readFailure(e, in.input);
        return table == null ? failure : table.records(failure, TrainCommand.FIRST_TRAINING_ROW);
    }
}
