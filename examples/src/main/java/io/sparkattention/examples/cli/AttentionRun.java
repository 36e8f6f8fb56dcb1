package io.sparkattention.examples.cli;

import io.sparkattention.ml.AttentionParams;
import org.apache.spark.SparkThrowable;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What {@code apply} and {@code sdpa} do around their stage: check every option, the output
 * location ({@link OutputGuard}) and the input's format before Spark starts; then start Spark,
 * read the input with a row index, set the stage's columns from the options and those the input
 * has, transform, write through a temporary path, and turn Spark's read failures into bad-input
 * errors that never name the command's own row index column.
 */
final class AttentionRun {

    /** Input columns the commands recognise; every other column is carried through. */
    static final String KEY = "key";
    static final String VALUE = "value";
    static final String KEY_LENGTH = "key_length";
    static final String ATTN_MASK = "attn_mask";
    static final String ATTN_BIAS = "attn_bias";

    private AttentionRun() {
    }

    /**
     * Runs one command.
     *
     * @param command     the command's name ({@code apply}, {@code sdpa})
     * @param options     the shared options
     * @param otherInputs further files the command reads, by option (e.g. {@code --weights}): the output
     *                    must stay clear of them too
     * @param stage       builds the stage once Spark runs (loading weights, for {@code apply})
     * @return the exit code, 0
     * @throws Exception Spark's exceptions (some checked, such as {@code SparkException}) as they come
     */
    static <T extends Transformer & AttentionParams<T>> int run(String command, AttentionOptions options,
                                                                Map<String, String> otherInputs,
                                                                Supplier<T> stage) throws Exception {
        options.validate();
        String format = options.format();
        Outputs outputs = options.output.plan(options.outputKind()).input("--input", options.input);
        otherInputs.forEach(outputs::input);
        try (Outputs out = outputs.check()) {
            otherInputs.forEach(AttentionRun::checkFileExists);
            boolean json = InputFiles.inspect(options.input);
            try (QuietLogs quiet = QuietLogs.unless(options.verbose)) {
                SparkSession spark = options.master.start(command, out);
                T attention = stage.get();
                InputTable input = null;
                try {
                    input = InputTable.read(spark, options.input, json, knownColumns(options));
                    if (input.isEmpty()) {
                        TableOutput.writeEmpty(spark, out.main(), format);
                    } else {
                        configure(attention, input, options);
                        Dataset<Row> rows = attention.transform(input.rows).drop(input.rowIndexColumn);
                        TableOutput.write(spark, rows, out.main(), format);
                    }
                } catch (Exception e) {
                    // SparkException is a checked exception that Scala code throws undeclared.
                    BadInputException record = BadRecords.describe(e, input);
                    Exception failure = record != null ? record : readFailure(e, options.input);
                    throw input == null ? failure : input.records(failure);
                }
                out.publish();
                return 0;
            }
        }
    }

    /** The input columns the commands know, and the kinds they are read as. */
    static Map<String, ColumnKind> knownColumns(AttentionOptions options) {
        Map<String, ColumnKind> known = new HashMap<>();
        known.put(KEY, ColumnKind.MATRIX);
        known.put(VALUE, ColumnKind.MATRIX);
        known.put(KEY_LENGTH, ColumnKind.INTEGER);
        known.put(ATTN_MASK, ColumnKind.MASK);
        known.put(ATTN_BIAS, ColumnKind.BIAS);
        known.put(options.outputColumn(), ColumnKind.MATRIX);
        known.put(options.queryCol, ColumnKind.MATRIX);
        return known;
    }

    /** A further input file (a local one) exists: checked before Spark starts. */
    private static void checkFileExists(String option, String path) {
        if (OutputGuard.isRemote(path)) {
            return;
        }
        Path file = Paths.get(path);
        if (!Files.isRegularFile(file)) {
            throw new BadInputException(option + ": " + path + (Files.isDirectory(file) ? " is a directory, not a file"
                : ": no such file"));
        }
    }

    private static <T extends AttentionParams<T>> void configure(T stage, InputTable input, AttentionOptions options) {
        if (!input.has(options.queryCol)) {
            throw new BadInputException("--input " + input.path + " has no column " + options.queryCol
                + " (--query-col); its columns: " + input.columnList());
        }
        checkNew(input, options.outputColumn(), "--output-col", options.outputCol != null);
        String weights = options.weightsColumn();
        if (weights != null) {
            checkNew(input, weights, "--weights-col", options.weightsCol != null);
        }
        stage.setQueryCol(options.queryCol).setOutputCol(options.outputColumn()).setRowIdCol(input.rowIndexColumn)
            .setCausal(options.causal).setCausalAlignment(options.alignment()).setWindowLeft(options.windowLeft())
            .setWindowRight(options.windowRight()).setStrategy(options.strategy).setOutputLayout(options.outputLayout);
        if (input.has(KEY)) {
            stage.setKeyCol(KEY);
        }
        if (input.has(VALUE)) {
            stage.setValueCol(VALUE);
        }
        if (input.has(KEY_LENGTH)) {
            stage.setKeyLengthCol(KEY_LENGTH);
        }
        if (input.has(ATTN_MASK)) {
            stage.setAttnMaskCol(ATTN_MASK);
        }
        if (input.has(ATTN_BIAS)) {
            stage.setAttnBiasCol(ATTN_BIAS);
        }
        if (weights != null) {
            stage.setWeightsCol(weights).setAverageWeights(!options.perHeadWeights);
        }
        if (options.blockSize != null) {
            stage.setBlockSize(options.blockSize);
        }
    }

    /** An added column must be new: an input that is an earlier output already has the default names. */
    private static void checkNew(InputTable input, String column, String option, boolean explicit) {
        if (input.has(column)) {
            throw new BadInputException("--input " + input.path + " already has a column " + column
                + (explicit ? "; give " + option + " a new name"
                : " (an earlier output?); name the new column with " + option + ", e.g. " + option + " " + column + "_2"));
        }
    }

    /**
     * Spark's own errors for unreadable input (a malformed JSON line, a corrupt Parquet file) as
     * bad input naming the input; a data error of this project in the same chain wins, it names
     * the row.
     */
    static Exception readFailure(Exception e, String input) {
        SparkThrowable readError = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof IllegalArgumentException || t instanceof BadInputException) {
                return e;
            }
            if (t instanceof SparkThrowable && isReadFailure(((SparkThrowable) t).getCondition())) {
                readError = (SparkThrowable) t;
            }
        }
        if (readError == null) {
            return e;
        }
        String condition = readError.getCondition();
        String what = condition.startsWith("MALFORMED_RECORD") ? "malformed JSON record" : "cannot read the input";
        return new BadInputException("--input " + input + ": " + what + " ("
            + ErrorReporting.oneLine(((Throwable) readError).getMessage()) + ")", e);
    }

    private static boolean isReadFailure(String condition) {
        return condition != null && (condition.startsWith("MALFORMED_RECORD") || condition.startsWith("FAILED_READ_FILE")
            || condition.startsWith("CANNOT_READ_FILE_FOOTER") || condition.startsWith("PARQUET_"));
    }
}
