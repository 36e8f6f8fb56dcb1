package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.nn.Pooling;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.LongAccumulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code spark-attention embed}: texts to sentence embeddings with a pretrained BERT-family
 * encoder — the bundled all-MiniLM-L6-v2 by default, or an ONNX or safetensors model with its
 * tokenizer.json — through the library's two stages ({@link HuggingFaceTokenizer}, then
 * {@link BertEncoderModel}). Every model and tokenizer file is read and checked before Spark starts.
 */
@Command(name = "embed", mixinStandardHelpOptions = true,
    description = {"Embeds every text of a JSON lines, CSV or Parquet input with a pretrained BERT-family encoder "
        + "(default: all-MiniLM-L6-v2, bundled): Hugging Face's tokenizer, then the encoder, then pooling. Output: "
        + "every input column plus input_ids, embedding (JSON lines: an array of numbers; Parquet: an MLlib vector) "
        + "and, with --states, last_hidden_state (L×E), rows in input order. stdout: a progress line every "
        + RowProgress.INTERVAL_SECONDS + " s (texts done of the total, texts per second, time left), and a last line "
        + "saying how many texts were embedded and how many truncated.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; no output "
            + "left behind); 1 internal error."})
final class EmbedCommand extends TableOutputCommand {

    /** The columns the command adds. */
    static final String IDS = "input_ids";
    static final String EMBEDDING = "embedding";
    static final String STATES = "last_hidden_state";
    @Option(names = "--text-col", defaultValue = "text", paramLabel = "COL",
        description = "The column of texts (default ${DEFAULT-VALUE}).")
    String textCol;

    @Mixin
    EncoderOptions model;

    @Option(names = "--pooling", defaultValue = "mean", paramLabel = "P",
        description = "mean (over every token, [CLS] and [SEP] included), cls or max (default ${DEFAULT-VALUE}).")
    String pooling;

    @Option(names = "--no-normalize", description = "Keep the pooled embedding as it is (default: L2-normalised).")
    boolean noNormalize;

    @Option(names = "--states", description = "Also write last_hidden_state, the encoder's L×E output.")
    boolean states;

    @Option(names = "--output-col-prefix", defaultValue = "", paramLabel = "P",
        description = "Prefix of the added columns' names, e.g. minilm_ for minilm_input_ids, minilm_embedding "
            + "(default: none): embeds an earlier output again.")
    String prefix;

    @Mixin
    HandleInvalidOption handleInvalid;

    /** The fine-tune output --model names, or null for a bundled model. */
    private FineTunedModel fineTuned;
    private HuggingFaceTokenizer tokenize;
    private BertEncoderModel encode;
    private LongAccumulator cut;

    @Override
    void validateOptions() {
        modelFiles();
        handleInvalid.get();
    }

    @Override
    Outputs outputs() {
        Outputs outputs = output.plan(kind(column(EMBEDDING)));
        modelFiles().forEach(outputs::input);
        return outputs;
    }

    /** Reads the tokenizer and the encoder, and checks --max-length against the model's positions. */
    @Override
    void prepare() {
        modelFiles().forEach((option, path) -> {
            if (!option.equals("--model")) {
                AttentionCommand.checkFileExists(option, path);
            }
        });
        fineTuned = FineTunedModel.isDirectory(model.model) ? FineTunedModel.read(model.model) : null;
        tokenize = tokenizerStage();
        encode = encoderStage();
        model.checkMaxLength(encode);
    }

    @Override
    Map<String, ColumnKind> columns(SparkSession spark) {
        return Map.of();
    }

    /**
     * Tokenizes, encodes and writes the rows, counting the truncated texts as they are written
     * (no second pass).
     */
    @Override
    void run(Run run) throws IOException {
        InputTable table = run.table;
        checkColumns(table);
        String truncated = table.rowIndexColumn + "_truncated";
        String ids = column(IDS), embedding = column(EMBEDDING);
        String mode = handleInvalid.get();
        tokenize.setInputCol(textCol).setOutputCol(ids).setTruncatedCol(truncated).setMaxLength(model.maxLength)
            .setRowIdCol(table.rowIndexColumn).setHandleInvalid(mode);
        encode.setInputCol(ids).setOutputCol(embedding).setStatesCol(states ? column(STATES) : "").setPooling(pooling)
            .setNormalize(!noNormalize).setRowIdCol(table.rowIndexColumn).setHandleInvalid(mode);
        // Counted by an accumulator in a filter that keeps every row: an Observation would start the
        // session's ObservationManager, which makes the SparkSession unserializable for MLlib
        // models that keep it in their training summary (a binary LogisticRegressionModel). A task
        // that Spark retries counts its rows again, so the count is a report, not a result.
        LongAccumulator truncations = run.spark.sparkContext().longAccumulator("embed: truncated");
        UserDefinedFunction counted = functions.udf((UDF1<Boolean, Boolean>) isCut -> {
            if (Boolean.TRUE.equals(isCut)) {
                truncations.add(1);
            }
            return true;
        }, DataTypes.BooleanType).asNondeterministic();
        Dataset<Row> rows = encode.transform(tokenize.transform(table.rows))
            .filter(counted.apply(functions.col(truncated)))
            .drop(truncated, table.rowIndexColumn);
        if (format().equals("json")) {
            // A row kept with --handle-invalid keep has a null embedding, which vector_to_array refuses.
            rows = rows.withColumn(embedding, functions.when(functions.col(embedding).isNotNull(),
                org.apache.spark.ml.functions.vector_to_array(functions.col(embedding), "float32")));
        }
        cut = truncations;
        write(run, rows);
    }

    /** The closing line: texts embedded, and how many were truncated. */
    @Override
    void finish() {
        System.out.printf(Locale.ROOT, "embed: %,d texts embedded into %s; %,d truncated at %d tokens%n", written,
            output.path(), cut == null ? 0 : cut.value(), model.maxLength);
        System.out.flush();
    }

    /** An added column's name, with --output-col-prefix. */
    private String column(String name) {
        return prefix + name;
    }

    /**
     * The model and tokenizer files the options name, by option, after checking that the options
     * go together ({@link EncoderOptions#check}) and the embedding's own options.
     */
    private Map<String, String> modelFiles() {
        boolean fineTunedDir = FineTunedModel.isDirectory(model.model);
        model.check(true, fineTunedDir);
        Pooling chosen;
        try {
            chosen = Pooling.parse(pooling);
        } catch (IllegalArgumentException e) {
            chosen = Pooling.LAST;
        }
        if (chosen == Pooling.LAST) {
            throw new BadInputException("--pooling must be mean, cls or max, got '" + pooling + "'");
        }
        pooling = chosen == Pooling.FIRST ? "cls" : chosen.paramValue();
        if (!prefix.isEmpty() && !prefix.matches("[A-Za-z0-9_]+")) {
            throw new BadInputException("--output-col-prefix: letters, digits and _ only, got '" + prefix + "'");
        }
        if (textCol.isBlank()) {
            throw new BadInputException("--text-col: the column name is empty");
        }
        Map<String, String> files = new LinkedHashMap<>();
        if (fineTunedDir) {
            files.put("--model", model.model);
        }
        files.putAll(model.files());
        return files;
    }

    private HuggingFaceTokenizer tokenizerStage() {
        if (fineTuned != null && model.tokenizer == null) {
            if (fineTuned.tokenizer == null) {
                throw new BadInputException("--model " + model.model + " was fine-tuned on token ids (--ids-col) and "
                    + "holds no tokenizer: give its tokenizer.json with --tokenizer");
            }
            return fineTuned.tokenizer;
        }
        return model.tokenizer();
    }

    private BertEncoderModel encoderStage() {
        return fineTuned != null ? fineTuned.encoder : model.encoder();
    }

    /** The text column exists and holds strings; the columns the command adds are new. */
    private void checkColumns(InputTable table) {
        if (!table.has(textCol)) {
            throw new BadInputException("--input " + table.path + " has no column " + textCol + " (--text-col); its "
                + "columns: " + table.columnList());
        }
        var type = table.rows.schema().apply(textCol).dataType();
        if (!type.equals(DataTypes.StringType)) {
            throw new BadInputException("--input " + table.path + ": column " + textCol + " (--text-col) holds "
                + type.simpleString() + ", not strings");
        }
        for (String added : states ? List.of(IDS, EMBEDDING, STATES) : List.of(IDS, EMBEDDING)) {
            if (table.has(column(added))) {
                throw new BadInputException("--input " + table.path + " already has a column " + column(added)
                    + " (an earlier output?); embed adds " + column(added) + ": name the added columns with "
                    + "--output-col-prefix, e.g. --output-col-prefix e2_");
            }
        }
    }
}
