package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code spark-attention train}: fits the attention classifier ({@link AttentionClassifier}) on a
 * JSON lines or Parquet input, prints one JSON line per step with the step's loss as the step
 * completes (through the stage's {@link io.sparkattention.ml.classification.TrainingListener}), and saves the
 * fitted model (and, if asked, its PyTorch state_dict). Every option, the outputs and the initial
 * weights are checked before Spark starts.
 */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Trains an attention classifier, PyTorch's reference module: a = MultiheadAttention(x, x, x) over "
        + "each row's tokens; h = x + a (or a with --no-residual); h pooled by mean, first or last token; logits = "
        + "Linear(E, K). K is --num-classes, else the label column's metadata, else the initial weights' class count, "
        + "else the largest label + 1, which must then be below 1000. Loss: the weighted mean "
        + "cross-entropy Σw·CE/Σw.",
        "Input: one row per sequence, the features column L×E (rows may differ in L) and a numeric label (a class "
            + "index 0, 1, ...).",
        "stdout: one JSON line per step and nothing else, {\"iteration\": i, \"loss\": ...} for i = 0 ... N, each "
            + "printed when it is known: step i's loss at the weights before it (over every row, or over the step's "
            + "sample with --mini-batch-fraction < 1), and for the last line the loss over every row after the final "
            + "step. N = --max-iter, "
            + "so --max-iter + 1 lines, unless --tol stops training earlier (see --tol). The last line also carries "
            + "\"training_accuracy\": the share of the rows the fitted model classifies right (printed once the fit "
            + "is done). A diverged loss prints as "
            + "NaN or Infinity, as Python's json module reads them. Logs go to stderr.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; nothing "
            + "left at --output or --export-pytorch); 1 internal error."})
final class TrainCommand extends TableCommand {

    /** Values of --pooling. */
    static final List<String> POOLINGS = List.of("mean", "first", "last");
    /** Values of --solver. */
    static final List<String> SOLVERS = List.of("adam", "gd");
    /**
     * The number {@link AttentionClassifier} gives the first training row in its messages ("row N:",
     * the position in the input): train turns it into the record's file and line.
     */
    static final long FIRST_TRAINING_ROW = 1;

    /** The key length column's usual name, which an input must not hold unnamed. */
    static final String KEY_LENGTH = "key_length";
    /** The value of --key-length-col that uses no column. */
    static final String NO_KEY_LENGTH = "none";

    @Option(names = "--num-heads", required = true, paramLabel = "H",
        description = "Attention heads; must divide the embedding width E.")
    int numHeads;

    @Option(names = "--features-col", defaultValue = "query", paramLabel = "COL",
        description = "Features column, L×E per row (default ${DEFAULT-VALUE}).")
    String featuresCol;

    @Option(names = "--label-col", defaultValue = "label", paramLabel = "COL",
        description = "Label column: the class index, a number that is an integer >= 0 (default ${DEFAULT-VALUE}).")
    String labelCol;

    @Option(names = "--weight-col", paramLabel = "COL",
        description = "Row weight column (finite, >= 0); default: every row weighs 1.")
    String weightCol;

    @Option(names = "--key-length-col", paramLabel = "COL",
        description = "Valid tokens per row: tokens at positions >= its value are ignored (padding). Default: none, "
            + "every token is valid, as AttentionClassifier's keyLengthCol. No column is picked up by its name: an "
            + "input with a " + KEY_LENGTH + " column needs --key-length-col " + KEY_LENGTH + " (or --key-length-col "
            + NO_KEY_LENGTH + " to ignore it), so the command line and the Java API train the same model on the same "
            + "data.")
    String keyLengthCol;

    @Option(names = "--causal", description = "Token i attends to tokens j <= i only.")
    boolean causal;

    @Option(names = "--pooling", defaultValue = "mean", paramLabel = "P",
        description = "mean (over valid tokens), first or last (valid token) (default ${DEFAULT-VALUE}).")
    String pooling;

    @Option(names = "--no-residual", description = "Pool a alone instead of x + a.")
    boolean noResidual;

    @Option(names = "--solver", defaultValue = "adam", paramLabel = "S",
        description = "adam (PyTorch's Adam, or AdamW when --weight-decay > 0) or gd (w <- w - X·gradient) "
            + "(default ${DEFAULT-VALUE}).")
    String solver;

    @Option(names = "--max-iter", defaultValue = "100", paramLabel = "N",
        description = "Optimiser steps, >= 0 (default ${DEFAULT-VALUE}).")
    int maxIter;

    @Option(names = "--step-size", defaultValue = "0.001", paramLabel = "X",
        description = "Learning rate, > 0 (default ${DEFAULT-VALUE}).")
    double stepSize;

    @Option(names = "--weight-decay", defaultValue = "0", paramLabel = "W",
        description = "AdamW's decoupled weight decay, >= 0; adam only, gd ignores it as PyTorch's plain SGD step "
            + "does (default ${DEFAULT-VALUE}).")
    double weightDecay;

    @Option(names = "--mini-batch-fraction", defaultValue = "1", paramLabel = "F",
        description = "Fraction of rows each step samples, in (0, 1]: a row is in a step's sample by (--seed, step, "
            + "row) alone (default ${DEFAULT-VALUE}: every row).")
    double miniBatchFraction;

    @Option(names = "--tol", defaultValue = "0", paramLabel = "T",
        description = "Stop early, >= 0: before each step i >= 10, when the step loss l (the weighted mean "
            + "cross-entropy over the step's rows) improved by less than T, relative, over the last 10 steps — "
            + "(l(i-10) - l(i)) / |l(i-10)| < T — step i is not taken and the last line printed is iteration i, the "
            + "loss over every row at the final weights (i + 1 lines in all). Adam's first, flat steps cannot stop a "
            + "run. Default 0: exactly --max-iter steps.")
    double tol;

    @Option(names = "--num-classes", defaultValue = "0", paramLabel = "K",
        description = "Number of classes K, >= 2 (default 0: from the label column's metadata, the initial weights, "
            + "or the largest label + 1, which must then be below 1000). Every label must be in [0, K).")
    int numClasses;

    @Option(names = "--seed", paramLabel = "S",
        description = "Seed of the initial weights (initialised as PyTorch does) and of the mini-batch sampling "
            + "(default: the stage's fixed default).")
    Long seed;

    @Option(names = "--initial-weights", paramLabel = "W.safetensors",
        description = "Start from this state_dict of the reference module (attention.in_proj_weight, "
            + "attention.in_proj_bias, attention.out_proj.weight, attention.out_proj.bias, classifier.weight, "
            + "classifier.bias); its classifier.weight fixes E and K.")
    String initialWeights;

    @Option(names = "--export-pytorch", paramLabel = "OUT.safetensors",
        description = "Also write the trained state_dict for load_state_dict in PyTorch (checked like --output).")
    String exportPyTorch;

    /** The step lines on stdout, once training starts. */
    private StepLines lines;

    @Override
    Outputs outputs() {
        return output.plan(OutputKind.directory()).add("--export-pytorch", exportPyTorch, OutputKind.stateDict())
            .localOnly().input("--initial-weights", initialWeights);
    }

    /** Checks the initial weights (with logs quieted: building the network logs the kernels' choice). */
    @Override
    void prepare() {
        InitialWeights.check(initialWeights, numHeads);
    }

    @Override
    Map<String, ColumnKind> columns(SparkSession spark) {
        return knownColumns();
    }

    @Override
    void run(Run run) throws IOException {
        Dataset<Row> rows = trainingRows(run.table);
        AttentionClassifier stage = stage();
        lines = new StepLines(System.out);
        stage.setTrainingListener(lines::step);
        AttentionClassificationModel model = stage.fit(rows);
        double accuracy = model.summary().accuracy();
        lines.finish(accuracy);
        model.write().save(run.out.main().uri());
        if (exportPyTorch != null) {
            model.exportPyTorch(run.out.get("--export-pytorch").uri());
        }
    }

    /** The stage's errors name its params and the row by its position from 1: as options, and by file and line. */
    @Override
    Exception failure(Exception e, InputTable table) {
        if (lines != null) {
            lines.stop();
        }
        if (table != null && e instanceof IllegalArgumentException && !(e instanceof BadInputException)) {
            return table.records(new BadInputException(optionNames(e.getMessage()), e), FIRST_TRAINING_ROW);
        }
        BadInputException record = BadRecords.describe(e, table);
        if (record != null) {
            return record;
        }
        Exception failure = readFailure(e, in.input);
        return table == null ? failure : table.records(failure, FIRST_TRAINING_ROW);
    }

    /** Checks every option that needs no file or Spark. */
    @Override
    void validate() {
        if (numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
        pooling = Choices.check("--pooling", pooling, POOLINGS);
        solver = Choices.check("--solver", solver, SOLVERS);
        if (numClasses != 0 && numClasses < 2) {
            throw new BadInputException("--num-classes must be >= 2 (or 0: inferred), got " + numClasses);
        }
        if (maxIter < 0) {
            throw new BadInputException("--max-iter must be >= 0, got " + maxIter);
        }
        if (!(stepSize > 0) || Double.isInfinite(stepSize)) {
            throw new BadInputException("--step-size must be a finite number > 0, got " + stepSize);
        }
        if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
            throw new BadInputException("--weight-decay must be a finite number >= 0, got " + weightDecay);
        }
        if (!(miniBatchFraction > 0 && miniBatchFraction <= 1)) {
            throw new BadInputException("--mini-batch-fraction must be in (0, 1], got " + miniBatchFraction);
        }
        if (!(tol >= 0) || Double.isInfinite(tol)) {
            throw new BadInputException("--tol must be a finite number >= 0, got " + tol);
        }
        column("--features-col", featuresCol);
        column("--label-col", labelCol);
        column("--weight-col", weightCol);
        column("--key-length-col", keyLengthCol);
        if (featuresCol.equals(labelCol)) {
            throw new BadInputException("--features-col and --label-col are both '" + labelCol
                + "': give them different columns");
        }
    }

    private static void column(String option, String name) {
        if (name != null && name.isBlank()) {
            throw new BadInputException(option + ": the column name is empty");
        }
    }

    /** The input's rows, every column the command needs present (named by its option when missing). */
    private Dataset<Row> trainingRows(InputTable table) {
        String input = in.input;
        require(table, featuresCol, "--features-col");
        require(table, labelCol, "--label-col");
        DataType labelType = table.rows.schema().apply(labelCol).dataType();
        if (!(labelType instanceof NumericType)) {
            throw new BadInputException("--input " + input + ": column " + labelCol + " (--label-col) holds "
                + labelType.simpleString() + " values; expected a number, the class index 0, 1, ...");
        }
        if (weightCol != null) {
            require(table, weightCol, "--weight-col");
        }
        if (NO_KEY_LENGTH.equals(keyLengthCol)) {
            keyLengthCol = null;
        } else if (keyLengthCol != null) {
            require(table, keyLengthCol, "--key-length-col");
        } else if (table.has(KEY_LENGTH)) {
            throw new BadInputException("--input " + input + " has a column " + KEY_LENGTH + ", and no --key-length-col "
                + "is given: --key-length-col " + KEY_LENGTH + " ignores each row's tokens past its length, "
                + "--key-length-col " + NO_KEY_LENGTH + " treats every token as valid");
        }
        // The split keeps the input's order, so the stage's "row N" is the record's position in the input.
        return table.rows.drop(table.rowIndexColumn);
    }

    /** The input columns train knows, and the kinds they are read as. */
    private Map<String, ColumnKind> knownColumns() {
        Map<String, ColumnKind> known = new HashMap<>();
        known.put(KEY_LENGTH, ColumnKind.INTEGER);
        if (keyLengthCol != null && !keyLengthCol.equals(NO_KEY_LENGTH)) {
            known.put(keyLengthCol, ColumnKind.INTEGER);
        }
        if (weightCol != null) {
            known.put(weightCol, ColumnKind.NUMBER);
        }
        known.put(labelCol, ColumnKind.NUMBER);
        known.put(featuresCol, ColumnKind.MATRIX);
        return known;
    }

    private void require(InputTable table, String column, String option) {
        if (!table.has(column)) {
            throw new BadInputException("--input " + in.input + " has no column " + column + " (" + option
                + "); its columns: " + table.columnList());
        }
    }

    /** The stage's messages name its params; the command line's user knows them as options. */
    static String optionNames(String message) {
        String m = message == null ? "" : message;
        return m.replace("initialWeightsPath: ", "--initial-weights: ").replace("numHeads (", "--num-heads (")
            .replaceAll("\\bnumClasses\\b", "--num-classes")
            .replace(" (handleInvalid=keep lets it propagate)", "");
    }

    /** The estimator with every option. */
    private AttentionClassifier stage() {
        AttentionClassifier stage = new AttentionClassifier()
            .setFeaturesCol(featuresCol).setLabelCol(labelCol)
            .setNumHeads(numHeads).setCausal(causal).setResidual(!noResidual).setPooling(pooling)
            .setSolver(solver).setMaxIter(maxIter).setStepSize(stepSize).setWeightDecay(weightDecay)
            .setMiniBatchFraction(miniBatchFraction).setTol(tol).setNumClasses(numClasses);
        if (weightCol != null) {
            stage.setWeightCol(weightCol);
        }
        if (keyLengthCol != null) {
            stage.setKeyLengthCol(keyLengthCol);
        }
        if (seed != null) {
            stage.setSeed(seed);
        }
        if (initialWeights != null) {
            stage.setInitialWeightsPath(initialWeights);
        }
        return stage;
    }
}
