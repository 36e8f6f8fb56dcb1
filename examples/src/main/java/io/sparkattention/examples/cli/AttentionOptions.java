package io.sparkattention.examples.cli;

import picocli.CommandLine.Option;

import java.util.Locale;

/** The options {@code apply} and {@code sdpa} share: input, output, masking, weights, execution. */
final class AttentionOptions {

    @Option(names = "--input", required = true, paramLabel = "IN",
        description = "JSON lines (.json, .jsonl) or Parquet (.parquet) file, or a directory of them. Columns: query; "
            + "optional key, value, key_length, attn_mask (boolean L×S, true = may attend), attn_bias (L×S or H×L×S).")
    String input;

    @Option(names = "--output", required = true, paramLabel = "OUT",
        description = "Output: every input column plus attn_output (and attn_weights). A name ending in .json or "
            + ".jsonl is one JSON lines file; any other name is a directory of part files. Written to a temporary "
            + "sibling and renamed when complete.")
    String output;

    @Option(names = "--output-format", paramLabel = "FORMAT",
        description = "json (JSON lines) or parquet; default: parquet for an output ending in .parquet, json otherwise.")
    String outputFormat;

    @Option(names = "--causal", description = "Causal mask, top-left aligned (query i sees keys j <= i).")
    boolean causal;

    @Option(names = "--need-weights", description = "Also output attn_weights (averaged over heads: L×S).")
    boolean needWeights;

    @Option(names = "--per-head-weights",
        description = "Output attn_weights with one L×S plane per head (H×L×S); implies --need-weights.")
    boolean perHeadWeights;

    @Option(names = "--strategy", defaultValue = "auto", paramLabel = "S",
        description = "How work is laid out on Spark: auto, batch, head or sequence (default ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--block-size", paramLabel = "N", description = "Kernel tile size (default: the kernel's).")
    Integer blockSize;

    @Option(names = "--master", paramLabel = "URL", description = "Spark master (default local[*]).")
    String master;

    @Option(names = "--overwrite", description = "Replace an existing output.")
    boolean overwrite;

    @Option(names = "--verbose", description = "Keep Spark's own log output on stderr.")
    boolean verbose;

    /** The output format, checked: {@code json} or {@code parquet}. */
    String format() {
        if (outputFormat == null) {
            return output.toLowerCase(Locale.ROOT).endsWith(".parquet") ? "parquet" : "json";
        }
        String f = outputFormat.trim().toLowerCase(Locale.ROOT);
        if (!f.equals("json") && !f.equals("parquet")) {
            throw new BadInputException("--output-format must be json or parquet, got " + outputFormat);
        }
        return f;
    }

    /** Checks what can be checked before Spark starts. */
    void validate() {
        format();
        if (blockSize != null && blockSize < 1) {
            throw new BadInputException("--block-size must be >= 1, got " + blockSize);
        }
    }
}
