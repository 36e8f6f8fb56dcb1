package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.ml.SequenceLayoutParams;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * The options {@code apply} and {@code sdpa} share: columns, masking, weights, execution. {@link #validate} checks every value before Spark starts.
 */
final class AttentionOptions {

    /** Values of --strategy. */
    static final List<String> STRATEGIES = List.of("auto", "batch", "head", "sequence");
    /** Values of --output-layout. */
    static final List<String> LAYOUTS = List.of(SequenceLayoutParams.OUTPUT_LAYOUTS);
    /** Values of --causal-alignment. */
    static final List<String> ALIGNMENTS = List.of("top-left", "bottom-right");
    /** Default output column. */
    static final String OUTPUT_COL = "attn_output";
    /** Default weights column (with --need-weights). */
    static final String WEIGHTS_COL = "attn_weights";

    @Option(names = "--output-layout", defaultValue = "auto", paramLabel = "LAYOUT",
        description = "Layout of the output column: nested (L arrays of W numbers), flat (one array of L·W numbers per "
            + "row; in Parquet its width W is in the column's metadata) or auto: flat when the query column is flat "
            + "(default ${DEFAULT-VALUE}). Attention weights stay nested.")
    String outputLayout;

    @Option(names = "--query-col", defaultValue = "query", paramLabel = "COL",
        description = "Query column (default ${DEFAULT-VALUE}); e.g. attn_output to feed an output back in.")
    String queryCol;

    @Option(names = "--output-col", paramLabel = "COL",
        description = "Column the result is written to (default " + OUTPUT_COL + "); must be new in the input.")
    String outputCol;

    @Option(names = "--weights-col", paramLabel = "COL",
        description = "Column of the attention weights (default " + WEIGHTS_COL + "); implies --need-weights.")
    String weightsCol;

    @Option(names = "--causal", description = "Causal mask (query i sees keys j <= i, see --causal-alignment).")
    boolean causal;

    @Option(names = "--causal-alignment", defaultValue = "top-left", paramLabel = "A",
        description = "Diagonal of --causal and --window when L != S: top-left (query i sees keys j <= i, PyTorch's "
            + "is_causal) or bottom-right (j <= i + S - L, decoding against a cache) (default ${DEFAULT-VALUE}).")
    String causalAlignment;

    @Option(names = "--window", paramLabel = "LEFT,RIGHT",
        description = "Sliding window: query i sees keys from i - LEFT to i + RIGHT around the aligned diagonal; "
            + "-1 for no bound on a side (e.g. 128,0 with --causal: the 128 previous tokens and itself).")
    String window;

    @Option(names = "--need-weights", description = "Also output attn_weights (averaged over heads: L×S).")
    boolean needWeights;

    @Option(names = "--per-head-weights",
        description = "Output attn_weights with one L×S plane per head (H×L×S); implies --need-weights.")
    boolean perHeadWeights;

    @Option(names = "--strategy", defaultValue = "auto", paramLabel = "S",
        description = "How work is laid out on Spark: auto, batch, head or sequence (default ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--block-size", paramLabel = "N",
        description = "Kernel tile size, 1 to " + AttentionSpec.MAX_BLOCK + " (default: the kernel's).")
    Integer blockSize;

    private int windowLeft = -1;
    private int windowRight = -1;

    /** The stage's causal alignment param value. */
    String alignment() {
        return Choices.check("--causal-alignment", causalAlignment, ALIGNMENTS).replace('-', '_');
    }

    /** The output column. */
    String outputColumn() {
        return outputCol != null ? outputCol : OUTPUT_COL;
    }

    /** The weights column, or null without weights. */
    String weightsColumn() {
        return weightsCol != null ? weightsCol : needWeights || perHeadWeights ? WEIGHTS_COL : null;
    }

    int windowLeft() {
        return windowLeft;
    }

    int windowRight() {
        return windowRight;
    }

    /** Checks what can be checked before Spark starts. */
    void validate() {
        alignment();
        strategy = Choices.check("--strategy", strategy, STRATEGIES);
        outputLayout = Choices.check("--output-layout", outputLayout, LAYOUTS);
        if (blockSize != null && (blockSize < 1 || blockSize > AttentionSpec.MAX_BLOCK)) {
            throw new BadInputException("--block-size must be in [1, " + AttentionSpec.MAX_BLOCK + "], got " + blockSize);
        }
        column("--query-col", queryCol);
        column("--output-col", outputCol);
        column("--weights-col", weightsCol);
        if (outputColumn().equals(weightsColumn())) {
            throw new BadInputException("--output-col and --weights-col are both '" + outputColumn()
                + "': give them different names");
        }
        if (window != null) {
            parseWindow();
        }
    }

    private static void column(String option, String name) {
        if (name != null && name.isBlank()) {
            throw new BadInputException(option + ": the column name is empty");
        }
    }

    private void parseWindow() {
        String[] parts = window.split(",", -1);
        if (parts.length != 2) {
            throw new BadInputException("--window: expected LEFT,RIGHT (two integers, -1 for no bound), got '"
                + window + "'");
        }
        windowLeft = windowSide("LEFT", parts[0]);
        windowRight = windowSide("RIGHT", parts[1]);
    }

    private int windowSide(String side, String text) {
        int value;
        try {
            value = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new BadInputException("--window: " + side + " must be an integer >= -1, got '" + text.strip()
                + "' in '" + window + "'");
        }
        if (value < -1) {
            throw new BadInputException("--window: " + side + " must be >= 0, or -1 for no bound, got " + value);
        }
        return value;
    }
}
