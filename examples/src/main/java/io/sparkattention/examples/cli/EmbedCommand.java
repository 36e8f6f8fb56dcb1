package io.sparkattention.examples.cli;

import io.sparkattention.io.BundledModels;
import io.sparkattention.ml.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.nn.Pooling;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.util.LongAccumulator;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code spark-attention embed}: texts to sentence embeddings with a pretrained BERT-family
 * encoder — the bundled all-MiniLM-L6-v2 by default, or an ONNX or safetensors model with its
 * tokenizer.json — through the library's two stages ({@link HuggingFaceTokenizer}, then
 * {@link BertEncoderModel}). Every model and tokenizer file is read and checked before Spark starts.
 */
@Command(name = "embed", mixinStandardHelpOptions = true,
    description = {"Embeds every text of a JSON lines or Parquet input with a pretrained BERT-family encoder "
        + "(default: all-MiniLM-L6-v2, bundled): Hugging Face's tokenizer, then the encoder, then pooling. Output: "
        + "every input column plus input_ids, embedding (JSON lines: an array of numbers; Parquet: an MLlib vector) "
        + "and, with --states, last_hidden_state (L×E). A last line on stdout says how many texts were truncated.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; no output "
            + "left behind); 1 internal error."})
final class EmbedCommand implements Callable<Integer> {

    /** The columns the command adds. */
    static final String IDS = "input_ids";
    static final String EMBEDDING = "embedding";
    static final String STATES = "last_hidden_state";

    @Option(names = "--input", required = true, paramLabel = "IN",
        description = InputFiles.INPUT_HELP + ", with a string column of texts (see --text-col).")
    String input;

    /** {@code --output}: every input column plus input_ids, embedding (and last_hidden_state). */
    @Mixin
    OutputOptions output;

    @Mixin
    OutputFormatOption outputFormat;

    @Option(names = "--text-col", defaultValue = "text", paramLabel = "COL",
        description = "The column of texts (default ${DEFAULT-VALUE}).")
    String textCol;

    @Option(names = "--model", paramLabel = "NAME",
        description = "A bundled model: " + BundledModels.ALL_MINILM_L6_V2 + " (the default when neither --onnx nor "
            + "--safetensors is given).")
    String model;

    @Option(names = "--onnx", paramLabel = "M.onnx",
        description = "A BERT-family encoder as ONNX (as Hugging Face's exporters write it); needs --tokenizer.")
    String onnx;

    @Option(names = "--safetensors", paramLabel = "M.safetensors",
        description = "A Hugging Face BertModel as safetensors; needs --tokenizer and --num-heads.")
    String safetensors;

    @Option(names = "--prefix", defaultValue = "", paramLabel = "P",
        description = "Name prefix of the model in the safetensors file, e.g. bert. (default: none).")
    String prefix;

    @Option(names = "--tokenizer", paramLabel = "T.json",
        description = "The model's Hugging Face tokenizer.json (with --onnx or --safetensors).")
    String tokenizer;

    @Option(names = "--num-heads", paramLabel = "H",
        description = "Attention heads: required with --safetensors (no tensor shows them); with --onnx, checked "
            + "against the graph's. Must divide the hidden width.")
    Integer numHeads;

    @Option(names = "--max-length", defaultValue = "256", paramLabel = "N",
        description = "Longest input in tokens, [CLS] and [SEP] included; longer texts are truncated "
            + "(default ${DEFAULT-VALUE}, sentence-transformers' for all-MiniLM-L6-v2).")
    int maxLength;

    @Option(names = "--pooling", defaultValue = "mean", paramLabel = "P",
        description = "mean (over every token, [CLS] and [SEP] included), cls or max (default ${DEFAULT-VALUE}).")
    String pooling;

    @Option(names = "--no-normalize", description = "Keep the pooled embedding as it is (default: L2-normalised).")
    boolean noNormalize;

    @Option(names = "--states", description = "Also write last_hidden_state, the encoder's L×E output.")
    boolean states;

    @Mixin
    MasterOption master;

    @Option(names = "--verbose", description = "Keep Spark's own log output on stderr.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        String format = outputFormat.of(output.path());
        Map<String, String> files = modelFiles();
        Outputs outputs = output.plan(TableOutput.kind(output.path(), format, EMBEDDING)).input("--input", input);
        files.forEach(outputs::input);
        try (Outputs out = outputs.check()) {
            files.forEach(AttentionRun::checkFileExists);
            boolean json = InputFiles.inspect(input);
            try (QuietLogs quiet = QuietLogs.unless(verbose)) {
                HuggingFaceTokenizer tokenize = tokenizerStage();
                BertEncoderModel encode = encoderStage();
                int positions = encode.encoder().config().maxPositions();
                if (maxLength > positions) {
                    throw new BadInputException("--max-length " + maxLength + " is longer than the model's "
                        + positions + " positions");
                }
                SparkSession spark = master.start("embed", out);
                EmbedProgress progress = new EmbedProgress(System.out);
                spark.sparkContext().addSparkListener(progress);
                InputTable table = null;
                long[] counts;
                try {
                    table = InputTable.read(spark, input, json, Map.of());
                    if (table.isEmpty()) {
                        TableOutput.writeEmpty(spark, out.main(), format);
                        counts = new long[2];
                    } else {
                        counts = embed(spark, table, tokenize, encode, out.main(), format);
                    }
                } catch (Exception e) {
                    // SparkException is a checked exception that Scala code throws undeclared.
                    BadInputException record = BadRecords.describe(e, table);
                    Exception failure = record != null ? record : AttentionRun.readFailure(e, input);
                    throw table == null ? failure : table.records(failure);
                } finally {
                    spark.sparkContext().removeSparkListener(progress);
                }
                out.publish();
                report(counts[0], counts[1]);
                return 0;
            }
        }
    }

    /**
     * Tokenizes, encodes and writes the rows, counting the texts and the truncated ones as they are
     * written (no second pass).
     *
     * @return the texts written and how many of them were truncated
     */
    private long[] embed(SparkSession spark, InputTable table, HuggingFaceTokenizer tokenize, BertEncoderModel encode,
                         StagedOutput target, String format) throws IOException, InterruptedException {
        checkColumns(table);
        String truncated = table.rowIndexColumn + "_truncated";
        tokenize.setInputCol(textCol).setOutputCol(IDS).setTruncatedCol(truncated).setMaxLength(maxLength)
            .setRowIdCol(table.rowIndexColumn);
        encode.setInputCol(IDS).setOutputCol(EMBEDDING).setStatesCol(states ? STATES : "").setPooling(pooling)
            .setNormalize(!noNormalize).setRowIdCol(table.rowIndexColumn);
        // Counted by accumulators in a filter that keeps every row: an Observation would start the
        // session's ObservationManager, which makes the SparkSession unserializable for MLlib
        // models that keep it in their training summary (a binary LogisticRegressionModel). A task
        // that Spark retries counts its rows again, so the counts are a report, not a result.
        LongAccumulator texts = spark.sparkContext().longAccumulator("embed: texts");
        LongAccumulator cut = spark.sparkContext().longAccumulator("embed: truncated");
        UserDefinedFunction counted = functions.udf((UDF1<Boolean, Boolean>) isCut -> {
            texts.add(1);
            if (Boolean.TRUE.equals(isCut)) {
                cut.add(1);
            }
            return true;
        }, DataTypes.BooleanType).asNondeterministic();
        Dataset<Row> rows = encode.transform(tokenize.transform(table.rows))
            .filter(counted.apply(functions.col(truncated)))
            .drop(truncated, table.rowIndexColumn);
        if (format.equals("json")) {
            rows = rows.withColumn(EMBEDDING,
                org.apache.spark.ml.functions.vector_to_array(functions.col(EMBEDDING), "float32"));
        }
        TableOutput.write(spark, rows, target, format);
        return new long[] {texts.value(), cut.value()};
    }

    private void report(long texts, long truncated) {
        System.out.printf(Locale.ROOT, "embed: %,d texts embedded into %s; %,d truncated at %d tokens%n", texts,
            output.path(), truncated, maxLength);
        System.out.flush();
    }

    /**
     * The model and tokenizer files the options name, by option, after checking that the options
     * go together: one model source, a tokenizer exactly with a model file, heads with safetensors.
     */
    private Map<String, String> modelFiles() {
        if (onnx != null && safetensors != null) {
            throw new BadInputException("--onnx and --safetensors both given: name one model file");
        }
        String file = onnx != null ? "--onnx" : safetensors != null ? "--safetensors" : null;
        if (model != null && file != null) {
            throw new BadInputException("--model and " + file + " both given: a bundled model or a model file, not both");
        }
        if (file != null && tokenizer == null) {
            throw new BadInputException(file + " needs --tokenizer (the model's tokenizer.json)");
        }
        if (file == null && tokenizer != null) {
            throw new BadInputException("--tokenizer goes with --onnx or --safetensors; the bundled model has its own");
        }
        if (safetensors != null && numHeads == null) {
            throw new BadInputException("--safetensors needs --num-heads (no tensor shows the heads)");
        }
        if (file == null && numHeads != null) {
            throw new BadInputException("--num-heads goes with --onnx or --safetensors");
        }
        if (numHeads != null && numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
        if (maxLength < 1) {
            throw new BadInputException("--max-length must be >= 1, got " + maxLength);
        }
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
        if (textCol.isBlank()) {
            throw new BadInputException("--text-col: the column name is empty");
        }
        Map<String, String> files = new LinkedHashMap<>();
        if (onnx != null) {
            files.put("--onnx", onnx);
        }
        if (safetensors != null) {
            files.put("--safetensors", safetensors);
        }
        if (tokenizer != null) {
            files.put("--tokenizer", tokenizer);
        }
        return files;
    }

    private HuggingFaceTokenizer tokenizerStage() {
        try {
            return tokenizer != null ? HuggingFaceTokenizer.fromPath(tokenizer)
                : HuggingFaceTokenizer.pretrained(bundledName());
        } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            throw new BadInputException((tokenizer != null ? "--tokenizer: " : "--model: ") + e.getMessage(), e);
        }
    }

    private BertEncoderModel encoderStage() {
        String option = onnx != null ? "--onnx" : safetensors != null ? "--safetensors" : "--model";
        try {
            if (onnx != null) {
                return BertEncoderModel.fromOnnx(onnx, numHeads == null ? 0 : numHeads);
            }
            if (safetensors != null) {
                return BertEncoderModel.fromSafeTensors(safetensors, prefix, numHeads);
            }
            return BertEncoderModel.pretrained(bundledName());
        } catch (UncheckedIOException e) {
            throw new BadInputException(option + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new BadInputException((numHeads != null && e.getMessage().contains("heads") ? "--num-heads: "
                : option + ": ") + e.getMessage(), e);
        }
    }

    private String bundledName() {
        return model != null ? model : BundledModels.ALL_MINILM_L6_V2;
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
            if (table.has(added)) {
                throw new BadInputException("--input " + table.path + " already has a column " + added
                    + " (an earlier output?); embed adds " + added);
            }
        }
    }
}
