package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputGuard;
import io.sparkattention.ml.AttentionParams;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.SparkSession;

import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code apply} and {@code sdpa}: an attention stage over every row, its columns set from the
 * options and from those the input has (key, value, key_length, attn_mask, attn_bias).
 *
 * @param <T> the stage
 */
abstract class AttentionCommand<T extends Transformer & AttentionParams<T>> extends TableOutputCommand {

    /** Input columns the commands recognise; every other column is carried through. */
    static final String KEY = "key";
    static final String VALUE = "value";
    static final String KEY_LENGTH = "key_length";
    static final String ATTN_MASK = "attn_mask";
    static final String ATTN_BIAS = "attn_bias";

    @Mixin
    AttentionOptions options;

    private T stage;

    /** Further files the command reads, by option (e.g. {@code --weights}): the output must stay clear of them too. */
    abstract Map<String, String> otherInputs();

    /** The stage, built once Spark runs (loading weights, for {@code apply}). */
    abstract T stage();

    /** Checks the command's own options. */
    abstract void validateStage();

    @Override
    final void validateOptions() {
        validateStage();
        options.validate();
    }

    @Override
    final Outputs outputs() {
        Outputs outputs = output.plan(kind(options.outputColumn()));
        otherInputs().forEach(outputs::input);
        return outputs;
    }

    @Override
    final void prepare() {
        otherInputs().forEach(AttentionCommand::checkFileExists);
    }

    @Override
    final Map<String, ColumnKind> columns(SparkSession spark) {
        stage = stage();
        return knownColumns(options);
    }

    @Override
    final void run(Run run) throws IOException {
        configure(stage, run.table, options);
        write(run, stage.transform(run.table.rows).drop(run.table.rowIndexColumn));
    }

    /** The stage's messages name its params; the command line's user knows them as options. */
    @Override
    final Exception failure(Exception e, InputTable table) {
        Exception failure = super.failure(e, table);
        String m = failure.getMessage();
        if (!(failure instanceof BadInputException) || m == null) {
            return failure;
        }
        String shown = m.replace("numKvHeads (", "--num-kv-heads (").replace("numHeads (", "--num-heads (");
        return shown.equals(m) ? failure : new BadInputException(shown, failure);
    }

    /** The input columns the commands know, and the kinds they are read as. */
    static Map<String, ColumnKind> knownColumns(AttentionOptions options) {
        Map<String, ColumnKind> known = new HashMap<>();
        known.put(KEY, ColumnKind.MATRIX);
        known.put(VALUE, ColumnKind.MATRIX);
        known.put(KEY_LENGTH, ColumnKind.INTEGER);
        known.put(ATTN_MASK, ColumnKind.MASK);
        known.put(ATTN_BIAS, ColumnKind.BIAS);
        known.put(options.outputColumn(), ColumnKind.MATRIX);
        known.put(options.queryCol, ColumnKind.MATRIX);
        return known;
    }

    /** A further input file (a local one) exists: checked before Spark starts. */
    static void checkFileExists(String option, String path) {
        if (OutputGuard.isRemote(path)) {
            return;
        }
        Path file = Paths.get(path);
        if (!Files.isRegularFile(file)) {
            throw new BadInputException(option + ": " + path + (Files.isDirectory(file) ? " is a directory, not a file"
                : ": no such file"));
        }
    }

    private static <T extends AttentionParams<T>> void configure(T stage, InputTable input, AttentionOptions options) {
        if (!input.has(options.queryCol)) {
            throw new BadInputException("--input " + input.path + " has no column " + options.queryCol
                + " (--query-col); its columns: " + input.columnList());
        }
        checkNew(input, options.outputColumn(), "--output-col", options.outputCol != null);
        String weights = options.weightsColumn();
        if (weights != null) {
            checkNew(input, weights, "--weights-col", options.weightsCol != null);
        }
        stage.setQueryCol(options.queryCol).setOutputCol(options.outputColumn()).setRowIdCol(input.rowIndexColumn)
            .setCausal(options.causal).setCausalAlignment(options.alignment()).setWindowLeft(options.windowLeft())
            .setWindowRight(options.windowRight()).setStrategy(options.strategy).setOutputLayout(options.outputLayout);
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
        if (weights != null) {
            stage.setWeightsCol(weights).setAverageWeights(!options.perHeadWeights);
        }
        if (options.blockSize != null) {
            stage.setBlockSize(options.blockSize);
        }
    }

    /** An added column must be new: an input that is an earlier output already has the default names. */
    private static void checkNew(InputTable input, String column, String option, boolean explicit) {
        if (input.has(column)) {
            throw new BadInputException("--input " + input.path + " already has a column " + column
                + (explicit ? "; give " + option + " a new name"
                : " (an earlier output?); name the new column with " + option + ", e.g. " + option + " " + column + "_2"));
        }
    }
}
