package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.classification.BertClassifier;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code spark-attention fine-tune}: fine-tunes a pretrained BERT encoder with a classifier head
 * ({@link BertClassifier}) on labelled texts or token ids, prints its setup's progress
 * ({@link SetupProgress}) and then one JSON line per step as {@code train} does, and saves what
 * {@code predict --model} applies to new texts: a {@code PipelineModel} of the tokenizer and the
 * fine-tuned classifier (with {@code --text-col}), or the classifier alone (with
 * {@code --ids-col}); with string labels ({@link StringLabels}) the pipeline ends with the stage
 * that gives them back. Every option and model file is checked before Spark starts; every row
 * before the first step.
 */
@Command(name = "fine-tune", mixinStandardHelpOptions = true, sortOptions = false,
    resourceBundle = "io.sparkattention.examples.cli.FineTuneCommand",
    description = {"Fine-tunes a pretrained BERT-family encoder (default: all-MiniLM-L6-v2, bundled) with a linear "
        + "head on its pooled output, as Hugging Face's Trainer does: AdamW with no decay on biases and LayerNorm "
        + "weights, linear warmup and decay, global gradient-norm clipping, dropout. --trainable-layers N trains "
        + "the top N layers and the head (0: the head only; -1, the default: everything); the frozen layers run "
        + "once per row. Loss: the weighted mean cross-entropy.",
        "Input: one row per text (--text-col, tokenized here) or per sequence of token ids (--ids-col, [CLS] ... "
            + "[SEP] in place), and a label: the class index 0, 1, ..., or a string (numbered as MLlib's StringIndexer "
            + "does: the most frequent 0, ties alphabetically; predict then adds predicted_label, the string).",
        "stdout: JSON lines: {\"setup\": phase, ...} through the setup (reading and tokenizing the rows, the frozen "
            + "layers' states), then one line per step, {\"iteration\": i, \"loss\": ...} for i = 0 ... N: the "
            + "loss over step i's sample (dropout on) before the step, and for the last line the loss over every row "
            + "at the final weights (no dropout), which also carries \"training_accuracy\". Logs go to stderr.",
        "Output: the model directory, for predict --model and embed --model.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; nothing "
            + "left at --output or --export-pytorch); 1 internal error."})
final class FineTuneCommand extends TableCommand {

    /** Values of --pooling. */
    static final List<String> POOLINGS = List.of("mean", "cls");
    /** The tokenized ids' column with --text-col. */
    static final String IDS = "input_ids";
    /** How the stage names a bad row: "row N:", its position from 1 among the rows it fits. */
    private static final Pattern STAGE_ROW = Pattern.compile("row (\\d+):");

    @Mixin
    EncoderOptions model;

    /** Values of --handle-invalid: a row without a text or ids has nothing to train on, so none is kept. */
    static final List<String> HANDLE_INVALID = List.of("error", "skip");
    /** The estimator's seed when --seed is not given (MLlib's: the hash of BertClassifier's class name). */
    static final String DEFAULT_SEED = "1110332804";

    @Option(names = "--handle-invalid", defaultValue = "error", paramLabel = "H",
        description = "A row without a text or ids: error (stop, naming its column, file and line) or skip (leave it "
            + "out of the fit) (default ${DEFAULT-VALUE}).")
    String handleInvalid;

    @Option(names = "--text-col", paramLabel = "COL",
        description = "The column of texts, tokenized with the model's tokenizer (default text, unless --ids-col).")
    String textCol;

    @Option(names = "--ids-col", paramLabel = "COL",
        description = "A column of token ids, read as they are ([CLS] ... [SEP] in place), instead of --text-col.")
    String idsCol;

    @Option(names = "--label-col", defaultValue = "label", paramLabel = "COL",
        description = "Label column: the class index, an integer >= 0, or a label string (default ${DEFAULT-VALUE}).")
    String labelCol;

    @Option(names = "--weight-col", paramLabel = "COL", description = "Row weight column (finite, >= 0).")
    String weightCol;

    @Option(names = "--num-classes", defaultValue = "0", paramLabel = "K",
        description = "Number of classes, >= 2 (default 0: from the initial weights or the largest label + 1).")
    int numClasses;

    @Option(names = "--trainable-layers", defaultValue = "-1", paramLabel = "N",
        description = "The top N layers train with the head; 0: the head only; -1: everything, the embeddings too "
            + "(default ${DEFAULT-VALUE}).")
    int trainableLayers;

    @Option(names = "--pooling", defaultValue = "mean", paramLabel = "P",
        description = "mean (over every token) or cls (the first token) (default ${DEFAULT-VALUE}).")
    String pooling;

    /** --solver, --step-size, --weight-decay, --warmup-steps (their words in FineTuneCommand.properties). */
    @Mixin
    OptimiserOptions optimiser;

    /** --max-grad-norm, --dropout, --max-iter (dropout's words in FineTuneCommand.properties). */
    @Mixin
    StepOptions step;

    @Option(names = "--mini-batch-fraction", defaultValue = "1", paramLabel = "F",
        description = "Fraction of rows each step samples, in (0, 1], by (--seed, step, row) (default "
            + "${DEFAULT-VALUE}).")
    double miniBatchFraction;

    @Option(names = "--seed", defaultValue = DEFAULT_SEED, paramLabel = "S",
        description = "Seed of the head, the sampling and the dropout masks (default ${DEFAULT-VALUE}, the "
            + "estimator's own).")
    long seed;

    @Option(names = "--tol", defaultValue = "0", paramLabel = "X",
        description = "Stop early, >= 0: before step i >= 10, when the step losses improved by less than X, "
            + "relative, over the last 10 steps (default ${DEFAULT-VALUE}: run --max-iter steps).")
    double tol;

    @Option(names = "--initial-weights", paramLabel = "HEAD.safetensors",
        description = "Start the head from classifier.weight [K, E] and classifier.bias [K] in this file (default: "
            + "the --safetensors file's own head when it holds one, else a new head from --seed).")
    String initialWeights;

    @Option(names = "--export-pytorch", paramLabel = "OUT.safetensors",
        description = "Also write every tensor of the fine-tuned encoder in Hugging Face BertModel names (no prefix) "
            + "plus classifier.weight and classifier.bias (checked like --output).")
    String exportPyTorch;

    private BertEncoderModel encoder;
    /** The head the training starts from when the --safetensors file holds one and --initial-weights is not given. */
    String modelHead;
    private HuggingFaceTokenizer tokenize;
    private StepLines lines;
    /** The rows the stage fits, with the input's row index; null before the fit. */
    private Supplier<Dataset<Row>> trainingRows;

    @Override
    void validate() {
        FineTuneOptions.check(this);
    }

    @Override
    Outputs outputs() {
        Outputs outputs = output.plan(OutputKind.directory())
            .add("--export-pytorch", exportPyTorch, OutputKind.stateDict(BertClassificationModel.EXPORT_FORMAT)).localOnly();
        modelFiles().forEach(outputs::input);
        return outputs;
    }

    /** The model, tokenizer and head files the options name, by option. */
    Map<String, String> modelFiles() {
        Map<String, String> files = new LinkedHashMap<>(model.files());
        if (initialWeights != null) {
            files.put("--initial-weights", initialWeights);
        }
        return files;
    }

    /** Reads the encoder (and the tokenizer with --text-col) and checks --max-length against its positions. */
    @Override
    void prepare() {
        modelFiles().forEach(AttentionCommand::checkFileExists);
        encoder = model.encoder();
        modelHead = initialWeights == null && model.safetensorsHasHead() ? model.safetensors : null;
        if (idsCol == null) {
            tokenize = model.tokenizer().setHandleInvalid(handleInvalid);
            model.checkMaxLength(encoder);
        }
    }

    @Override
    Map<String, ColumnKind> columns(SparkSession spark) {
        Map<String, ColumnKind> known = new HashMap<>();
        known.put(labelCol, ColumnKind.NUMBER);
        if (weightCol != null) {
            known.put(weightCol, ColumnKind.NUMBER);
        }
        return known;
    }

    @Override
    void run(Run run) throws IOException {
        try (SetupProgress setup = SetupProgress.start(run.spark.sparkContext(), System.out, idsCol == null,
            trainableLayers >= 0)) {
            fit(run, setup);
        }
    }

    /** Fits and saves the model, reporting the setup's progress until the first step. */
    private void fit(Run run, SetupProgress setup) throws IOException {
        InputTable table = run.table;
        if (modelHead != null) {
            setup.phase("starting from the classifier head in --safetensors " + modelHead);
        }
        require(table, labelCol, "--label-col");
        DataType labelType = table.rows.schema().apply(labelCol).dataType();
        if (!(labelType instanceof NumericType) && !labelType.equals(DataTypes.StringType)) {
            throw new BadInputException("--input " + in.input + ": column " + labelCol + " (--label-col) holds "
                + labelType.simpleString() + " values; expected the class index 0, 1, ... or a label string");
        }
        if (weightCol != null) {
            require(table, weightCol, "--weight-col");
        }
        if (idsCol == null && table.has(IDS)) {
            throw new BadInputException("--input " + in.input + (table.has(textCol) ? " already has a column " + IDS
                + ", which fine-tune writes by tokenizing --text-col " + textCol : " has no column " + textCol
                + " (--text-col) but a column " + IDS) + ": to train on those token ids, give --ids-col " + IDS
                + (table.has(textCol) ? " (instead of --text-col); else drop or rename the column" : ""));
        }
        require(table, idsCol != null ? idsCol : textCol, idsCol != null ? "--ids-col" : "--text-col");
        // The rows keep the input's row index (the stage reads only its own columns): the stage names a bad row
        // by its position among the rows it fits, which --handle-invalid skip makes differ from the input's.
        Dataset<Row> rows = table.rows;
        if (idsCol != null && handleInvalid.equals("skip")) {
            rows = rows.filter(functions.col(idsCol).isNotNull());
        }
        StringLabels labels = null;
        if (labelType.equals(DataTypes.StringType)) {
            setup.phase("indexing the labels");
            labels = StringLabels.fit(rows, labelCol, in.input);
            rows = labels.indexed(rows, labelCol);
        }
        Dataset<Row> fitRows = rows;
        BertClassifier stage = FineTuneOptions.stage(this, encoder)
            .setNumPartitions(rows.rdd().getNumPartitions());
        lines = new StepLines(System.out);
        stage.setTrainingListener((iteration, loss) -> {
            setup.close();
            lines.step(iteration, loss);
        });
        List<PipelineStage> stages = new ArrayList<>();
        if (idsCol != null) {
            trainingRows = () -> fitRows;
            stage.setFeaturesCol(idsCol);
        } else {
            tokenize.setInputCol(textCol).setOutputCol(IDS).setMaxLength(model.maxLength);
            trainingRows = () -> tokenize.transform(fitRows);
            stage.setFeaturesCol(IDS);
            stages.add(tokenize);
        }
        stages.add(stage);
        if (labels != null && !labels.indices) {
            stages.add(labels.decoder(stage.getPredictionCol()));
        }
        PipelineModel pipeline = new Pipeline().setStages(stages.toArray(new PipelineStage[0])).fit(rows);
        BertClassificationModel fitted = (BertClassificationModel) pipeline.stages()[idsCol != null ? 0 : 1];
        lines.finish(fitted.summary().accuracy());
        if (pipeline.stages().length == 1) {
            fitted.write().save(run.out.main().uri());
        } else {
            pipeline.write().save(run.out.main().uri());
        }
        if (exportPyTorch != null) {
            fitted.exportPyTorch(run.out.get("--export-pytorch").uri());
        }
    }

    /** The stage's errors name its params and the row by its position from 1: as options, and by file and line. */
    @Override
    Exception failure(Exception e, InputTable table) {
        if (lines != null) {
            lines.stop();
        }
        if (table != null && e instanceof IllegalArgumentException && !(e instanceof BadInputException)) {
            String message = e.getMessage() == null ? "" : e.getMessage();
            Matcher row = STAGE_ROW.matcher(message);
            Long index = trainingRows == null || !row.lookingAt() ? null
                : rowIndexAt(trainingRows.get(), table.rowIndexColumn, Long.parseLong(row.group(1)) - 1);
            if (index != null) {
                return table.records(new BadInputException(FineTuneOptions.optionNames("row " + index + ":"
                    + message.substring(row.end())), e));
            }
            return table.records(new BadInputException(FineTuneOptions.optionNames(message), e),
                TrainCommand.FIRST_TRAINING_ROW);
        }
        BadInputException record = BadRecords.describe(e, table);
        if (record != null) {
            return record;
        }
        Exception failure = readFailure(e, in.input);
        return table == null ? failure : table.records(failure, TrainCommand.FIRST_TRAINING_ROW);
    }

    /**
     * The input row index of the row at {@code position} (from 0) of {@code rows}, in the order the
     * stage reads them; null when there is none or the job fails (the stage's own error is then
     * reported as it is). A job over the rows, on the error path only.
     */
    private static Long rowIndexAt(Dataset<Row> rows, String indexColumn, long position) {
        try {
            List<Long> found = rows.select(indexColumn).javaRDD().zipWithIndex().filter(t -> t._2() == position)
                .map(t -> ((Number) t._1().get(0)).longValue()).collect();
            return found.isEmpty() ? null : found.get(0);
        } catch (Exception e) {
            // SparkException is checked, and thrown by Scala code undeclared.
            return null;
        }
    }

    private void require(InputTable table, String column, String option) {
        if (!table.has(column)) {
            throw new BadInputException("--input " + in.input + " has no column " + column + " (" + option
                + "); its columns: " + table.columnList());
        }
    }
}
