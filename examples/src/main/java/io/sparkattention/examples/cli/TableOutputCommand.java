package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.util.Locale;

/**
 * A {@link TableCommand} whose output is a table ({@code apply}, {@code sdpa}, {@code embed},
 * {@code predict}): every input row, in input order, with the columns the command adds, written
 * with live progress on stdout ({@link RowProgress}) and a closing line saying how many rows went
 * where.
 */
abstract class TableOutputCommand extends TableCommand {

    /** {@code --output-format} and {@code --partition-by}. */
    @Mixin
    OutputFormatOption outputFormat;

    /** Rows written, once the write is done. */
    long written;

    /** The output format, checked: {@code json} or {@code parquet}. */
    final String format() {
        return outputFormat.of(output.path());
    }

    /** What the output is, for the output-safety rule: a JSON lines file holding {@code column}, or a directory. */
    final OutputKind kind(String column) {
        return TableOutput.kind(output.path(), format(), column);
    }

    /** Checks the output options, then the command's ({@link #validateOptions}). */
    @Override
    final void validate() {
        outputFormat.check(output.path());
        validateOptions();
    }

    /** Checks the command's own options that need no file and no Spark. */
    abstract void validateOptions();

    /** Writes the rows into {@code --output}, with progress lines. */
    final void write(Run run, Dataset<Row> rows) throws IOException {
        outputFormat.checkColumns(rows.columns());
        try (RowProgress progress = RowProgress.start(run.spark.sparkContext(), name(), run.table.total, System.out)) {
            TableOutput.write(run.spark, progress.counting(rows), run.out.main(), format(), outputFormat.partitionBy);
            written = progress.written();
        }
    }

    /** An input without columns gives an empty output. */
    @Override
    final void empty(Run run) throws IOException {
        TableOutput.writeEmpty(run.spark, run.out.main(), format());
    }

    @Override
    void finish() {
        System.out.printf(Locale.ROOT, "%s: %,d rows written to %s%n", name(), written, output.path());
        System.out.flush();
    }
}
