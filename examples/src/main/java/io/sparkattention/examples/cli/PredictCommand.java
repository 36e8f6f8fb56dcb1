package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code spark-attention predict}: applies a saved model, an {@code AttentionClassificationModel}
 * ({@code train}'s output) or any {@code PipelineModel} (the demo's {@code model/}, from a
 * {@code text} column), to a JSON lines or Parquet input, keeping every input column and adding
 * the model's outputs.
 */
@Command(name = "predict", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Applies a saved model to every row: an AttentionClassificationModel (train's --output) or any "
        + "saved PipelineModel (e.g. the demo's model/, which starts from a text column); the directory's metadata "
        + "says which. The output holds every input column plus the model's outputs: prediction, probability and "
        + "rawPrediction (arrays of numbers in JSON lines, ML vectors in Parquet), and for a pipeline the columns its "
        + "stages after the classifier add (the demo's predicted_book; predicted_label, the label string, for a model "
        + "fine-tune trained on string labels); a pipeline's intermediate columns (tokens, "
        + "features) are not kept.",
        "A JSON lines input is read with the types the model needs (its features column: a sequence L×E of "
            + "numbers); its errors name the file and the 1-based line of the record, a Parquet input's the row "
            + "(from 0).",
        "stdout: a progress line every " + RowProgress.INTERVAL_SECONDS + " s (rows done of the total, rows per "
            + "second, time left) and a last line saying how many rows were written where; rows in input order.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the model, column, line, file or parameter; no "
            + "output left behind); 1 internal error."})
final class PredictCommand extends TableOutputCommand {

    @Option(names = "--model", required = true, paramLabel = "DIR",
        description = "Directory of a saved model: AttentionClassificationModel (train's --output) or PipelineModel.")
    String model;

    @Option(names = "--features-col", paramLabel = "COL",
        description = "For an AttentionClassificationModel: the column of the L×E sequences (default: the model's "
            + "featuresCol, as trained). A pipeline reads the columns its first stages were built with.")
    String featuresCol;

    @Mixin
    HandleInvalidOption handleInvalid;

    private SavedModel saved;
    private Transformer transformer;

    @Override
    void validateOptions() {
        if (featuresCol != null && featuresCol.isBlank()) {
            throw new BadInputException("--features-col: the column name is empty");
        }
        handleInvalid.get();
        saved = SavedModel.read(model);
        saved.checkLoadable();
        if (featuresCol != null && saved.isPipeline()) {
            throw new BadInputException("--features-col applies to a single AttentionClassificationModel; --model "
                + model + " is a PipelineModel, which reads the columns its stages were built with");
        }
    }

    @Override
    Outputs outputs() {
        return output.plan(kind(predictionColumn(saved))).input("--model", model);
    }

    @Override
    Map<String, ColumnKind> columns(SparkSession spark) {
        transformer = saved.load(model);
        if (featuresCol != null) {
            setFeaturesCol(transformer, featuresCol);
        }
        return knownColumns(transformer);
    }

    @Override
    void run(Run run) throws IOException {
        Dataset<Row> rows = run.table.rows.drop(run.table.rowIndexColumn);
        checkColumns(transformer, rows.schema(), run.table);
        write(run, ModelRows.predictions(transformer, rows, format(), handleInvalid.get()));
    }

    @Override
    Exception failure(Exception e, InputTable table) {
        return ModelRows.inputColumns(super.failure(e, table), transformer, table);
    }

    /** The prediction column the output will have, from the saved params (for the output-safety rule). */
    private static String predictionColumn(SavedModel saved) {
        String column = null;
        for (SavedModel stage : saved.isPipeline() ? saved.stages() : List.of(saved)) {
            String c = stage.param("predictionCol");
            column = c != null && !c.isEmpty() ? c : column;
        }
        return column != null ? column : "prediction";
    }

    private static void setFeaturesCol(Transformer transformer, String column) {
        if (!transformer.hasParam("featuresCol")) {
            throw new BadInputException("--features-col: the model (" + transformer.getClass().getSimpleName()
                + ") has no features column");
        }
        Param<Object> param = transformer.getParam("featuresCol");
        transformer.set(param, column);
    }

    /**
     * The columns a JSON lines input is declared with: the sequence (features) and key-length
     * columns of the model's attention classifiers that the input itself holds.
     */
    private static Map<String, ColumnKind> knownColumns(Transformer transformer) {
        Map<String, ColumnKind> known = new HashMap<>();
        for (Transformer stage : stages(transformer)) {
            if (stage.hasParam("featuresCol") && stage.hasParam("keyLengthCol")) {
                known.put(stage.getOrDefault(stage.getParam("featuresCol")).toString(), ColumnKind.MATRIX);
                String keyLength = stage.getOrDefault(stage.getParam("keyLengthCol")).toString();
                if (!keyLength.isEmpty()) {
                    known.put(keyLength, ColumnKind.INTEGER);
                }
            }
        }
        return known;
    }

    private static List<Transformer> stages(Transformer transformer) {
        return ModelRows.stages(transformer);
    }

    /** The model's own schema check: a column it needs and the input lacks is bad input naming both. */
    private void checkColumns(Transformer transformer, StructType schema, InputTable table) {
        try {
            transformer.transformSchema(schema);
        } catch (IllegalArgumentException e) {
            String reason = ErrorReporting.oneLine(e.getMessage());
            throw new BadInputException("--input " + in.input + " does not fit --model " + model + ": " + reason
                + (reason.contains("the input has") ? "" : " (the input's columns: " + table.columnList() + ")"), e);
        }
    }
}
