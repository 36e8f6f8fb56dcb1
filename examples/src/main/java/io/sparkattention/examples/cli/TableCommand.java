package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The skeleton of every command that reads a table and writes an output, written once: check the
 * options ({@link #validate}), the outputs ({@link #outputs}, kept clear of the inputs) and the
 * input's files, all before Spark starts; quiet Spark's logs (unless {@code --verbose}); load what
 * needs no Spark ({@link #prepare}); start Spark; read the input ({@link #columns} says the types
 * of the columns the command knows), split into runs of consecutive rows ({@code --partitions});
 * run the command ({@link #run}); turn a failure into a bad-input error that names the file and
 * line ({@link #failure}); publish the outputs; print the closing line ({@link #finish}). A failed
 * run leaves no output behind.
 *
 * <pre>{@code
 * @Command(name = "fine-tune", ...)
 * final class FineTuneCommand extends TableCommand {
 *     Outputs outputs() { return output.plan(OutputKind.directory()); }
 *     void run(Run run) { model = estimator.fit(run.table.rows.drop(run.table.rowIndexColumn)); ...
 *                         model.write().save(run.out.main().uri()); }
 * }
 * }</pre>
 */
abstract class TableCommand implements Callable<Integer> {

    /** {@code --input}, {@code --input-format}, {@code --partitions}, {@code --master}, {@code --verbose}. */
    @Mixin
    InputOptions in;

    /** {@code --output} and {@code --overwrite}: what the output holds is the command's to say. */
    @Mixin
    OutputOptions output;

    /** What a command runs with once Spark runs and the input is read. */
    static final class Run {
        final SparkSession spark;
        final InputTable table;
        final Outputs out;

        Run(SparkSession spark, InputTable table, Outputs out) {
            this.spark = spark;
            this.table = table;
            this.out = out;
        }
    }

    @Override
    public final Integer call() throws Exception {
        in.validate();
        validate();
        try (Outputs out = outputs().input("--input", in.input).check()) {
            InputFiles.Format format = in.inspect();
            try (QuietLogs quiet = in.verbose.quietLogs()) {
                prepare();
                SparkSession spark = in.master.start(name(), out);
                InputTable table = null;
                try {
                    table = in.read(spark, format, columns(spark));
                    if (table.isEmpty()) {
                        empty(new Run(spark, table, out));
                    } else {
                        run(new Run(spark, table, out));
                    }
                } catch (Exception e) {
                    // SparkException is a checked exception that Scala code throws undeclared.
                    throw failure(e, table);
                }
                out.publish();
                finish();
                return 0;
            }
        }
    }

    /** The command's name, as {@code spark-attention NAME} runs it. */
    final String name() {
        return getClass().getAnnotation(Command.class).name();
    }

    /** Checks every option that needs no file and no Spark. */
    abstract void validate();

    /** The run's outputs, from {@code output.plan(kind)}, with every further input and output added. */
    abstract Outputs outputs();

    /** Before Spark starts, with its logs quieted: reads and checks model files. */
    void prepare() throws Exception {
    }

    /** Spark runs: the input columns the command knows, and the kinds they are read as. */
    abstract Map<String, ColumnKind> columns(SparkSession spark) throws Exception;

    /** The command's work: from the input table into the staged outputs. */
    abstract void run(Run run) throws Exception;

    /** An input without columns (a JSON lines file without records): refused unless the command writes a table. */
    void empty(Run run) throws Exception {
        throw new BadInputException("--input " + in.input + " has no rows: " + name() + " needs at least one");
    }

    /** Once the outputs are published: the command's closing line, if it prints one. */
    void finish() {
    }

    /**
     * The error to report for a failure of the run: a JSON record Spark could not read, or a row a
     * stage refused, named by its file and line; Spark's read errors as bad input naming the input.
     *
     * @param table the input, null when it could not be read
     */
    Exception failure(Exception e, InputTable table) {
        BadInputException record = BadRecords.describe(e, table);
        Exception failure = record != null ? record : readFailure(e, in.input);
        return table == null ? failure : table.records(failure);
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
        String what = condition.startsWith("MALFORMED_RECORD") ? "malformed record" : "cannot read the input";
        return new BadInputException("--input " + input + ": " + what + " ("
            + ErrorReporting.oneLine(((Throwable) readError).getMessage()) + ")", e);
    }

    private static boolean isReadFailure(String condition) {
        return condition != null && (condition.startsWith("MALFORMED_RECORD") || condition.startsWith("FAILED_READ_FILE")
            || condition.startsWith("CANNOT_READ_FILE_FOOTER") || condition.startsWith("PARQUET_"));
    }
}
