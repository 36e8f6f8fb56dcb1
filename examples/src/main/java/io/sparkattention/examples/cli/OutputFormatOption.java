package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * {@code --output-format} and {@code --partition-by}, the same in every command that writes a
 * table ({@link TableOutput}).
 */
public final class OutputFormatOption {

    @Option(names = "--output-format", paramLabel = "FORMAT",
        description = "json (JSON lines) or parquet; default: parquet for an output ending in .parquet, json otherwise. "
            + "An output named *.json or *.jsonl is one JSON lines file; any other name is a directory of part files, "
            + "which hold the rows in input order when read in name order.")
    String outputFormat;

    @Option(names = "--partition-by", paramLabel = "COL",
        description = "Write a directory of Hive partitions, one subdirectory COL=value per value of this output "
            + "column (not with a single-file output).")
    String partitionBy;

    /** The format of {@code output}, checked: {@code json} or {@code parquet}. */
    String of(String output) {
        return TableOutput.format(output, outputFormat);
    }

    /** Checks the options against the output path, before Spark starts. */
    void check(String output) {
        String format = of(output);
        if (partitionBy != null && partitionBy.isBlank()) {
            throw new BadInputException("--partition-by: the column name is empty");
        }
        if (partitionBy != null && TableOutput.singleFile(output, format)) {
            throw new BadInputException("--partition-by writes a directory of partitions; --output " + output
                + " names one JSON lines file: give a directory name (without .json or .jsonl)");
        }
    }

    /** The output has the {@code --partition-by} column. */
    void checkColumns(String[] columns) {
        if (partitionBy != null && !List.of(columns).contains(partitionBy)) {
            throw new BadInputException("--partition-by " + partitionBy + ": the output has no such column; its "
                + "columns: " + String.join(", ", columns));
        }
    }
}
