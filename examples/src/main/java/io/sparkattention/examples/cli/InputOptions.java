package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of every command that reads a table ({@link TableCommand}): {@code --input},
 * {@code --input-format}, {@code --partitions}, {@code --master} and {@code --verbose}.
 */
public final class InputOptions {

    /** The largest {@code --partitions}: a row's place in the split is computed in a long. */
    static final int MAX_PARTITIONS = 1 << 20;

    @Option(names = "--input", required = true, paramLabel = "IN",
        description = InputFiles.INPUT_HELP + "; the columns it needs: see above.")
    String input;

    @Option(names = "--input-format", paramLabel = "FORMAT",
        description = "json, csv or parquet: the format of every input file, whatever its name (default: from the "
            + "file names). A CSV file has a header line; its columns are strings.")
    String inputFormat;

    @Option(names = "--partitions", paramLabel = "N",
        description = "Tasks the rows are split into, 1 to " + MAX_PARTITIONS + ", each a run of consecutive input "
            + "rows (at most one per row); part files follow the input's order. Default: two per core of the "
            + "cluster, more when a task would hold over " + RowSplit.MAX_ROWS_PER_TASK + " rows, whatever the input's "
            + "files (one .gz file too).")
    Integer partitions;

    @Mixin
    MasterOption master;

    @Mixin
    VerboseOption verbose;

    /** The path given with {@code --input}. */
    public String path() {
        return input;
    }

    /** Checks the options that need no file: called before anything else. */
    void validate() {
        format();
        if (partitions != null && (partitions < 1 || partitions > MAX_PARTITIONS)) {
            throw new BadInputException("--partitions must be in [1, " + MAX_PARTITIONS + "], got " + partitions);
        }
    }

    /** The format {@code --input-format} names, null when not given. */
    InputFiles.Format format() {
        if (inputFormat == null) {
            return null;
        }
        String v = Choices.check("--input-format", inputFormat, List.of("json", "csv", "parquet"));
        return InputFiles.Format.valueOf(v.toUpperCase(Locale.ROOT));
    }

    /** The input's format from its files, checked before Spark starts. */
    InputFiles.Format inspect() {
        return InputFiles.inspect(input, format());
    }

    /** Reads the input, split into {@code --partitions} runs of consecutive rows. */
    InputTable read(SparkSession spark, InputFiles.Format format, Map<String, ColumnKind> known) {
        return InputTable.read(spark, input, format, known, partitions);
    }
}
