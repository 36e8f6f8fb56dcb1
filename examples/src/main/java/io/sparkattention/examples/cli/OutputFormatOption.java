package io.sparkattention.examples.cli;

import picocli.CommandLine.Option;

/** {@code --output-format}, the same in every command that writes a table ({@link TableOutput}). */
public final class OutputFormatOption {

    @Option(names = "--output-format", paramLabel = "FORMAT",
        description = "json (JSON lines) or parquet; default: parquet for an output ending in .parquet, json otherwise. "
            + "An output named *.json or *.jsonl is one JSON lines file; any other name is a directory of part files.")
    String outputFormat;

    /** The format of {@code output}, checked: {@code json} or {@code parquet}. */
    String of(String output) {
        return TableOutput.format(output, outputFormat);
    }
}
