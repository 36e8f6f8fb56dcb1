package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.PngMark;
import io.sparkattention.examples.viz.InputRows;
import io.sparkattention.viz.AttentionHeatmap;
import io.sparkattention.viz.HeatmapRows;
import io.sparkattention.viz.ScaleMode;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code spark-attention heatmap}: draws the attention weights of one input row, or a GPT model's
 * causal heads over a text ({@link GptHeatmap}).
 */
@Command(name = "heatmap", mixinStandardHelpOptions = true,
    description = {"Draws the attention weights of one row as a PNG heatmap (queries on the rows, keys on the "
        + "columns, token labels on both axes; one panel per head plus the average for per-head weights), and "
        + "optionally as a self-contained HTML page with the passage.",
        "The input is a JSON-lines file (.json, .jsonl), a Parquet file, or a directory of either, e.g. the output "
        + "of 'apply --need-weights'. Rows are numbered from 0 in file order: a directory's files in name order, "
        + "then each file's rows as stored.",
        "With --model DIR and --text TEXT instead: a GPT-2 directory's (config.json, model.safetensors, "
            + "tokenizer.json) causal heads of --layer over the text, one panel per head plus the average, the "
            + "future keys masked: the attention patterns as the model generates.",
        "Files are written to a hidden name beside the output and renamed, so no half-written picture is left "
            + "behind. An existing file is replaced only with --overwrite, and only if spark-attention drew it."})
final class HeatmapCommand implements Callable<Integer> {

    /** Column of the weights when --weights-col is not given. */
    static final String DEFAULT_WEIGHTS_COLUMN = "attn_weights";

    /** Column read for tokens when --tokens-col is not given (if the input has it). */
    static final String DEFAULT_TOKENS_COLUMN = "tokens";

    /** Column read for the HTML page's passage when --text-col is not given (if the input has it). */
    static final String DEFAULT_TEXT_COLUMN = "text";

    /** Spark's console progress bar setting. */
    private static final String PROGRESS_BAR = "spark.ui.showConsoleProgress";

    @Option(names = "--input", paramLabel = "IN",
        description = "JSON lines (.json/.jsonl), Parquet, or a directory of either (or --model and --text).")
    Path input;

    @Option(names = "--row", paramLabel = "N", description = "Row to draw, from 0, in file order (with --input).")
    Long row;

    @Option(names = "--model", paramLabel = "DIR",
        description = "A Hugging Face GPT-2 directory whose causal heads to draw over --text (instead of --input).")
    String model;

    @Option(names = "--text", paramLabel = "TEXT", description = "With --model: the text, tokenized with the "
        + "directory's tokenizer.json.")
    String text;

    @Option(names = "--layer", paramLabel = "N", defaultValue = "0",
        description = "With --model: the layer whose heads to draw, from 0 (default ${DEFAULT-VALUE}).")
    int layer;

    /** {@code --output}: the PNG. */
    @Mixin
    OutputOptions output;

    @Option(names = "--html", paramLabel = "HTML", description = "Also write a self-contained HTML page (inline SVG).")
    String html;

    // No defaultValue: picocli would apply it over the value the hidden alias set.
    @Option(names = "--weights-col", paramLabel = "COL",
        description = "array<array<float>> (L×S) or array<array<array<float>>> (H×L×S) (default "
            + DEFAULT_WEIGHTS_COLUMN + ").")
    String weightsColumn;

    @Option(names = "--tokens-col", paramLabel = "COL",
        description = "array<string> of key tokens, also used for the queries unless --query-tokens-col is given "
            + "(default: '" + DEFAULT_TOKENS_COLUMN + "' when the input has it, else positions 0, 1, ...).")
    String tokensColumn;

    @Option(names = "--query-tokens-col", paramLabel = "COL",
        description = "array<string> of query tokens, for cross-attention (L ≠ S).")
    String queryTokensColumn;

    @Option(names = "--text-col", paramLabel = "COL",
        description = "string column with the passage shown on the HTML page (default: '" + DEFAULT_TEXT_COLUMN
            + "' when the input has such a string column, else the tokens joined by spaces).")
    String textColumn;

    /** The earlier spellings of the column options, kept working and out of the help. */
    @Option(names = "--weights-column", hidden = true, paramLabel = "COL")
    void weightsColumnAlias(String column) {
        weightsColumn = column;
    }

    @Option(names = "--tokens-column", hidden = true, paramLabel = "COL")
    void tokensColumnAlias(String column) {
        tokensColumn = column;
    }

    @Option(names = "--query-tokens-column", hidden = true, paramLabel = "COL")
    void queryTokensColumnAlias(String column) {
        queryTokensColumn = column;
    }

    @Option(names = "--text-column", hidden = true, paramLabel = "COL")
    void textColumnAlias(String column) {
        textColumn = column;
    }

    @Option(names = "--title", paramLabel = "TEXT", description = "Figure title (default: the input's name and the row).")
    String title;

    @Option(names = "--scale", defaultValue = "shared", paramLabel = "MODE",
        description = "Colour scale: 'shared' by all panels (one colour bar) or 'per-panel' (default ${DEFAULT-VALUE}).")
    String scale;

    @Mixin
    MasterOption master;

    @Override
    public Integer call() throws IOException {
        ScaleMode mode = scaleMode(scale);
        if (weightsColumn == null) {
            weightsColumn = DEFAULT_WEIGHTS_COLUMN;
        }
        if ((input == null) == (model == null)) {
            throw new BadInputException("give --input (and --row) or --model (and --text), not " + (input == null
                ? "neither" : "both"));
        }
        if (model != null) {
            return drawModel(mode);
        }
        if (row == null) {
            throw new BadInputException("--input needs --row, the row to draw");
        }
        if (text != null) {
            throw new BadInputException("--text goes with --model");
        }
        if (row < 0) {
            throw new BadInputException("--row must be >= 0, got " + row);
        }
        try (Outputs out = output.plan(OutputKind.png()).add("--html", html, OutputKind.html()).localOnly()
            .input("--input", input.toString()).check()) {
            draw(mode, out);
            return 0;
        }
    }

    /** A GPT model's causal heads over --text: no Spark, the same outputs. */
    private int drawModel(ScaleMode mode) throws IOException {
        if (text == null) {
            throw new BadInputException("--model needs --text, the text to draw the heads over");
        }
        if (row != null) {
            throw new BadInputException("--row goes with --input");
        }
        try (Outputs out = output.plan(OutputKind.png()).add("--html", html, OutputKind.html()).localOnly()
            .input("--model", model).check()) {
            AttentionHeatmap heatmap = GptHeatmap.of(model, text, layer).scale(mode)
                .title(title != null ? title : Path.of(model).getFileName() + ", layer " + layer);
            PngMark.write(heatmap.toImage(), out.main().localPath());
            if (html != null) {
                heatmap.writeHtml(out.get("--html").localPath(), text);
            }
            out.publish();
            report(heatmap);
            return 0;
        }
    }

    private void draw(ScaleMode mode, Outputs out) throws IOException {
        InputRows.dataFiles(input);   // a missing or unreadable input fails before Spark starts

        // Reading one row takes a second or two: a progress bar would only scribble over stderr,
        // where scripts read the one-line error. An explicit setting still wins.
        if (System.getProperty(PROGRESS_BAR) == null) {
            System.setProperty(PROGRESS_BAR, "false");
        }
        SparkSession spark = master.start("heatmap", out);
        // JSON lines are read with the declared schema: the weights as numbers, L×S or H×L×S as the first
        // lines say, the other columns as the first lines show them (no pass over the whole file).
        Map<String, ColumnKind> known = Map.of(weightsColumn, ColumnKind.BIAS);
        Row data = InputRows.rowAt(spark, input, row,
            file -> DeclaredSchema.of(spark, JsonLines.of(file.toString()), known));
        String where = input + " row " + row + ": ";
        String keys = tokensColumn != null ? tokensColumn : has(data, DEFAULT_TOKENS_COLUMN) ? DEFAULT_TOKENS_COLUMN : null;
        AttentionHeatmap heatmap;
        try {
            heatmap = HeatmapRows.fromRow(data, weightsColumn, keys, queryTokensColumn);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(where + e.getMessage(), e);
        }
        heatmap = heatmap.scale(mode).title(title != null ? title : input.getFileName() + ", row " + row);

        // Everything is checked before the first file is written.
        String passage = html != null ? passage(data, keys, where) : null;
        Path png = out.main().localPath();
        PngMark.write(heatmap.toImage(), png);
        if (html != null) {
            heatmap.writeHtml(out.get("--html").localPath(), passage);
        }
        out.publish();
        report(heatmap);
    }

    /** The closing lines: what was written. */
    private void report(AttentionHeatmap heatmap) {
        System.out.println("wrote " + output.path() + " (" + describe(heatmap) + ")");
        if (html != null) {
            System.out.println("wrote " + html);
        }
    }

    private static ScaleMode scaleMode(String name) {
        switch (name) {
            case "shared":
                return ScaleMode.SHARED;
            case "per-panel":
                return ScaleMode.PER_PANEL;
            default:
                throw new BadInputException("--scale: expected one of shared, per-panel, got '" + name + "'");
        }
    }

    private String passage(Row data, String keys, String where) {
        // The default column is used only when it is text; an explicit one must be.
        String column = textColumn != null ? textColumn
            : has(data, DEFAULT_TEXT_COLUMN) && data.schema().apply(DEFAULT_TEXT_COLUMN).dataType() instanceof StringType
            ? DEFAULT_TEXT_COLUMN : null;
        if (column != null) {
            if (!has(data, column)) {
                throw new BadInputException(where + "no column '" + column + "' (columns: "
                    + String.join(", ", data.schema().fieldNames()) + ")");
            }
            StructField field = data.schema().apply(column);
            if (!(field.dataType() instanceof StringType)) {
                throw new BadInputException(where + "column '" + column + "' has type " + field.dataType().simpleString()
                    + ", expected string (the passage)");
            }
            return data.getString(data.fieldIndex(column));
        }
        if (keys != null && !data.isNullAt(data.fieldIndex(keys))) {
            List<String> tokens = data.getList(data.fieldIndex(keys));
            return String.join(" ", tokens);
        }
        return null;
    }

    private static boolean has(Row data, String column) {
        return Arrays.asList(data.schema().fieldNames()).contains(column);
    }

    private static String describe(AttentionHeatmap heatmap) {
        String heads = heatmap.heads() == 1 ? "one panel" : heatmap.heads() + " heads + average";
        return heads + ", L=" + heatmap.queryLength() + ", S=" + heatmap.keyLength();
    }
}
