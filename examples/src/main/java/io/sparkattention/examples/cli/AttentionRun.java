package io.sparkattention.examples.cli;

import io.sparkattention.ml.AttentionParams;
import org.apache.spark.SparkThrowable;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.util.function.Supplier;

/**
 * What {@code apply} and {@code sdpa} do around their stage: start Spark, refuse an existing
 * output, read the input with a row index, set the stage's columns from those the input has,
 * transform, write through a temporary path, and turn Spark's read failures into bad-input errors.
 */
final class AttentionRun {

    /** Input columns the commands recognise; every other column is carried through. */
    static final String KEY = "key";
    static final String VALUE = "value";
    static final String KEY_LENGTH = "key_length";
    static final String ATTN_MASK = "attn_mask";
    static final String ATTN_BIAS = "attn_bias";
    static final String OUTPUT = "attn_output";
    static final String WEIGHTS = "attn_weights";

    private AttentionRun() {
    }

    /**
     * Runs one command.
     *
     * @param appName Spark's application name
     * @param options the shared options
     * @param stage   builds the stage once Spark runs (loading weights, for {@code apply})
     * @return the exit code, 0
     * @throws Exception Spark's exceptions (some checked, such as {@code SparkException}) as they come
     */
    static <T extends Transformer & AttentionParams<T>> int run(String appName, AttentionOptions options,
                                                                Supplier<T> stage) throws Exception {
        options.validate();
        QuietLogs quiet = QuietLogs.unless(options.verbose);
        try {
            SparkSession spark = SparkSessions.start(appName, options.master);
            OutputTarget target = new OutputTarget(spark, options.output, options.format(), options.overwrite);
            target.checkWritable();
            T attention = stage.get();
            try {
                InputTable input = InputTable.read(spark, options.input);
                if (input.isEmpty()) {
                    target.writeEmpty();
                    return 0;
                }
                configure(attention, input, options);
                Dataset<Row> out = attention.transform(input.rows).drop(input.rowIndexColumn);
                target.write(out);
            } catch (Exception e) {
                // SparkException is a checked exception that Scala code throws undeclared.
                throw readFailure(e, options.input);
            }
            return 0;
        } finally {
            quiet.close();
        }
    }

    private static <T extends AttentionParams<T>> void configure(T stage, InputTable input, AttentionOptions options) {
        stage.setQueryCol("query").setOutputCol(OUTPUT).setRowIdCol(input.rowIndexColumn).setCausal(options.causal)
            .setStrategy(options.strategy);
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
        if (options.needWeights || options.perHeadWeights) {
            stage.setWeightsCol(WEIGHTS).setAverageWeights(!options.perHeadWeights);
        }
        if (options.blockSize != null) {
            stage.setBlockSize(options.blockSize);
        }
    }

    /**
     * Spark's own errors for unreadable input (a malformed JSON line, a corrupt Parquet file) as
     * bad input naming the input; a data error of this project in the same chain wins, it names
     * the row.
     */
    private static Exception readFailure(Exception e, String input) {
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
