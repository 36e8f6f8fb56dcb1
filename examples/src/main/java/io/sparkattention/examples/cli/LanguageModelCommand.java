package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.ml.lm.GptLanguageModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * What {@code perplexity} and {@code generate} share: a Hugging Face GPT-2 directory
 * ({@code --model}: {@code config.json}, {@code model.safetensors}, optionally {@code tokenizer.json})
 * read before Spark starts; the rows' texts ({@code --text-col}, tokenized with the directory's
 * tokenizer, never truncated) or ids ({@code --ids-col}, taken as they are); every row's ids
 * checked ({@link GptLanguageModel#checkRows}) before the model's work starts, a bad row named by
 * its file and line; the input's columns kept and the command's added.
 */
abstract class LanguageModelCommand extends TableOutputCommand {

    @Option(names = "--model", required = true, paramLabel = "DIR",
        description = "A Hugging Face GPT-2 directory as save_pretrained writes it: config.json and model.safetensors, "
            + "and tokenizer.json for --text-col.")
    String model;

    @Option(names = "--text-col", paramLabel = "COL",
        description = "The column of texts, tokenized with the directory's tokenizer.json, never truncated (default: "
            + "the command's, unless --ids-col).")
    String textCol;

    @Option(names = "--ids-col", paramLabel = "COL",
        description = "The column of token ids (arrays of integers), taken as they are.")
    String idsCol;

    /** The column holding the texts' ids, once tokenized. */
    private String hiddenIds;

    /** The model, read in {@link #prepare}. */
    GptLanguageModel lm;

    /** The text column's default name. */
    abstract String defaultTextCol();

    /** The columns the command adds (checked new). */
    abstract List<String> added();

    /** Checks the command's own options (numbers, ranges), naming them. */
    abstract void validateSettings();

    /** Sets the command's params on {@link #lm}; the rows' index column is {@code index}. */
    abstract void configure(String index);

    /** The command's work on the rows ({@link #lm}'s input column set). */
    abstract Dataset<Row> work(Dataset<Row> rows);

    /** Whether the rows are prompts ({@link GptLanguageModel#checkRows}'s {@code prompts}). */
    abstract boolean prompts();

    /** Checks the command's settings against the model's config, naming the option. */
    abstract void checkAgainst(GptConfig config);

    @Override
    final void validateOptions() {
        if (textCol != null && idsCol != null) {
            throw new BadInputException("--text-col and --ids-col both given: texts to tokenize or token ids, not both");
        }
        for (String[] col : new String[][] {{"--text-col", textCol}, {"--ids-col", idsCol}}) {
            if (col[1] != null && col[1].isBlank()) {
                throw new BadInputException(col[0] + ": the column name is empty");
            }
        }
        if (idsCol == null && textCol == null) {
            textCol = defaultTextCol();
        }
        validateSettings();
        Path dir = Paths.get(model);
        if (!Files.isDirectory(dir)) {
            throw new BadInputException("--model " + model + " is not a directory (a Hugging Face GPT-2 directory: "
                + "config.json and model.safetensors)");
        }
        if (idsCol == null && !Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw new BadInputException("--model " + model + " has no tokenizer.json, which --text-col needs: give "
                + "token ids with --ids-col");
        }
    }

    @Override
    final Outputs outputs() {
        return output.plan(kind(added().get(0))).input("--model", model);
    }

    /** Reads the model (and its tokenizer), and checks the settings against its config. */
    @Override
    final void prepare() {
        try {
            lm = GptLanguageModel.fromDirectory(model);
        } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            String m = ErrorReporting.oneLine(e.getMessage());
            throw new BadInputException(m.contains(model) ? "--model: " + m : "--model " + model + ": " + m, e);
        }
        checkAgainst(lm.decoder().config());
    }

    @Override
    final Map<String, ColumnKind> columns(SparkSession spark) {
        return Map.of();
    }

    @Override
    final void run(Run run) throws IOException {
        InputTable table = run.table;
        String column = idsCol != null ? idsCol : textCol;
        String option = idsCol != null ? "--ids-col" : "--text-col";
        if (!table.has(column)) {
            throw new BadInputException("--input " + table.path + " has no column " + column + " (" + option + "); its "
                + "columns: " + table.columnList());
        }
        for (String name : added()) {
            if (table.has(name)) {
                throw new BadInputException("--input " + table.path + " already has a column " + name + " (an earlier "
                    + "output?); " + name() + " adds " + name);
            }
        }
        DataType type = table.rows.schema().apply(column).dataType();
        Dataset<Row> rows = table.rows;
        String ids = idsCol;
        if (idsCol == null) {
            if (!type.equals(DataTypes.StringType)) {
                throw new BadInputException("--input " + table.path + ": column " + textCol + " (--text-col) holds "
                    + type.simpleString() + ", not strings");
            }
            ids = hiddenIdsColumn(table);
            rows = HuggingFaceTokenizer.fromBytes(lm.tokenizerJson()).setInputCol(textCol).setOutputCol(ids)
                .setMaxLength(HuggingFaceTokenizer.NO_TRUNCATION).setRowIdCol(table.rowIndexColumn).transform(rows);
        } else if (!(type instanceof ArrayType) || !(((ArrayType) type).elementType() instanceof IntegralType)) {
            throw new BadInputException("--input " + table.path + ": column " + idsCol + " (--ids-col) holds "
                + type.simpleString() + ", not arrays of token ids");
        } else if (!((ArrayType) type).elementType().equals(DataTypes.IntegerType)) {
            rows = rows.withColumn(idsCol, rows.col(idsCol).cast(DataTypes.createArrayType(DataTypes.LongType)));
        }
        lm.setInputCol(ids).setRowIdCol(table.rowIndexColumn);
        configure(table.rowIndexColumn);
        lm.checkRows(rows, prompts());
        Dataset<Row> out = work(rows);
        out = idsCol == null ? out.drop(ids, table.rowIndexColumn) : out.drop(table.rowIndexColumn);
        write(run, out);
    }

    /** The column the texts' ids are held in: a name the input does not have. */
    private String hiddenIdsColumn(InputTable table) {
        String name = textCol + "__token_ids";
        while (table.has(name)) {
            name = "_" + name;
        }
        hiddenIds = name;
        return name;
    }

    /** A row's error names the text column the ids came from, not the command's own column. */
    @Override
    Exception failure(Exception e, InputTable table) {
        Exception failure = super.failure(e, table);
        String m = failure.getMessage();
        if (failure instanceof BadInputException && m != null && hiddenIds != null) {
            return new BadInputException(m.replace("column " + hiddenIds, "the tokens of column " + textCol),
                failure.getCause());
        }
        return failure;
    }
}
