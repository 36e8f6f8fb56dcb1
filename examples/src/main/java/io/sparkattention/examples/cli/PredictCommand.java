package io.sparkattention.examples.cli;

import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.classification.ClassificationModel;
import org.apache.spark.ml.functions;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import static org.apache.spark.sql.functions.col;

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
        + "stages after the classifier add (the demo's predicted_book); a pipeline's intermediate columns (tokens, "
        + "features) are not kept.",
        "A JSON lines input is read with the types the model needs (its features column: a sequence L×E of "
            + "numbers); its errors name the file and the 1-based line of the record, a Parquet input's the row "
            + "(from 0).",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the model, column, line, file or parameter; no "
            + "output left behind); 1 internal error."})
final class PredictCommand implements Callable<Integer> {

    @Option(names = "--model", required = true, paramLabel = "DIR",
        description = "Directory of a saved model: AttentionClassificationModel (train's --output) or PipelineModel.")
    String model;

    @Option(names = "--input", required = true, paramLabel = "IN",
        description = InputFiles.INPUT_HELP + ", with the columns the model reads.")
    String input;

    /** {@code --output}: the input's columns plus the predictions. */
    @Mixin
    OutputOptions output;

    @Mixin
    OutputFormatOption outputFormat;

    @Option(names = "--features-col", paramLabel = "COL",
        description = "For an AttentionClassificationModel: the column of the L×E sequences (default: the model's "
            + "featuresCol, as trained). A pipeline reads the columns its first stages were built with.")
    String featuresCol;

    @Mixin
    MasterOption master;

    @Option(names = "--verbose", description = "Keep Spark's own log output on stderr.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        String format = outputFormat.of(output.path());
        if (featuresCol != null && featuresCol.isBlank()) {
            throw new BadInputException("--features-col: the column name is empty");
        }
        SavedModel saved = SavedModel.read(model);
        saved.checkLoadable();
        if (featuresCol != null && saved.isPipeline()) {
            throw new BadInputException("--features-col applies to a single AttentionClassificationModel; --model "
                + model + " is a PipelineModel, which reads the columns its stages were built with");
        }
        String predictionCol = predictionColumn(saved);
        try (Outputs out = output.plan(TableOutput.kind(output.path(), format, predictionCol)).input("--input", input)
                .input("--model", model).check();
             QuietLogs quiet = QuietLogs.unless(verbose)) {
            boolean json = InputFiles.inspect(input);
            SparkSession spark = master.start("predict", out);
            Transformer transformer = saved.load(model);
            if (featuresCol != null) {
                setFeaturesCol(transformer, featuresCol);
            }
            InputTable table = null;
            try {
                table = InputTable.read(spark, input, json, knownColumns(transformer));
                if (table.isEmpty()) {
                    TableOutput.writeEmpty(spark, out.main(), format);
                } else {
                    Dataset<Row> rows = table.rows.drop(table.rowIndexColumn);
                    checkColumns(transformer, rows.schema(), table);
                    TableOutput.write(spark, predictions(transformer, rows, format), out.main(), format);
                }
            } catch (Exception e) {
                BadInputException record = BadRecords.describe(e, table);
                throw table == null ? rethrow(AttentionRun.readFailure(e, input))
                    : rethrow(table.records(record != null ? record : AttentionRun.readFailure(e, input)));
            }
            out.publish();
            return 0;
        }
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
        return transformer instanceof PipelineModel ? List.of(((PipelineModel) transformer).stages())
            : List.of(transformer);
    }

    /** The model's own schema check: a column it needs and the input lacks is bad input naming both. */
    private void checkColumns(Transformer transformer, StructType schema, InputTable table) {
        try {
            transformer.transformSchema(schema);
        } catch (IllegalArgumentException e) {
            String reason = ErrorReporting.oneLine(e.getMessage());
            throw new BadInputException("--input " + input + " does not fit --model " + model + ": " + reason
                + (reason.contains("the input has") ? "" : " (the input's columns: " + table.columnList() + ")"), e);
        }
    }

    /**
     * The input's columns and the model's outputs: the columns its last classifier and the
     * stages after it add (every added column for a model that is not a pipeline); vectors as
     * arrays of doubles in JSON lines.
     */
    private static Dataset<Row> predictions(Transformer transformer, Dataset<Row> rows, String format) {
        Dataset<Row> all = transformer.transform(rows);
        Set<String> before = new LinkedHashSet<>(List.of(rows.columns()));
        if (transformer instanceof PipelineModel) {
            Transformer[] stages = ((PipelineModel) transformer).stages();
            int last = -1;
            for (int i = 0; i < stages.length; i++) {
                if (stages[i] instanceof ClassificationModel) {
                    last = i;
                }
            }
            StructType schema = rows.schema();
            for (int i = 0; i < last; i++) {
                schema = stages[i].transformSchema(schema);
            }
            before.addAll(List.of(schema.fieldNames()));
        }
        List<Column> kept = new ArrayList<>();
        for (String c : rows.columns()) {
            kept.add(col(c));
        }
        for (StructField f : all.schema().fields()) {
            if (!before.contains(f.name())) {
                kept.add(format.equals("json") && f.dataType() instanceof VectorUDT
                    ? functions.vector_to_array(col(f.name()), "float64").as(f.name()) : col(f.name()));
            }
        }
        return all.select(kept.toArray(new Column[0]));
    }

    private static RuntimeException rethrow(Exception e) {
        return e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
    }
}
