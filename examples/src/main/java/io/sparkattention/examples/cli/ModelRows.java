package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.classification.ClassificationModel;
import org.apache.spark.ml.functions;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_repeat;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.when;

/**
 * {@code predict}'s rows through a saved model, stage by stage: a row whose attention classifier
 * gets no token (an empty text through the demo's pipeline) follows {@code --handle-invalid};
 * its error names the input column the pipeline made that column from, not the internal one.
 */
final class ModelRows {

    /** The column marking the rows kept with null outputs (--handle-invalid keep). */
    private static final String INVALID = "__spark_attention_invalid";

    private ModelRows() {
    }

    /**
     * The input's columns and the model's outputs: the columns its last classifier and the stages
     * after it add (every added column for a model that is not a pipeline); vectors as arrays of
     * doubles in JSON lines.
     */
    static Dataset<Row> predictions(Transformer transformer, Dataset<Row> rows, String format, String handleInvalid) {
        List<Transformer> stages = stages(transformer);
        int last = -1;
        for (int i = 0; i < stages.size(); i++) {
            if (stages.get(i) instanceof ClassificationModel) {
                last = i;
            }
        }
        Set<String> before = new LinkedHashSet<>(List.of(rows.columns()));
        Dataset<Row> all = rows;
        boolean marked = false;
        for (int i = 0; i < stages.size(); i++) {
            Transformer stage = stages.get(i);
            if (i == last || !(transformer instanceof PipelineModel) && i == 0) {
                before.addAll(List.of(all.columns()));
            }
            String features = tokensColumn(stage);
            if (features != null && !handleInvalid.equals("error")) {
                Column empty = col(features).isNull().or(size(col(features)).lt(1));
                if (handleInvalid.equals("skip")) {
                    all = all.filter(empty.unary_$bang());
                } else {
                    // Kept: the stage gets one zero token in place of none, and the row's outputs are nulled below.
                    all = all.withColumn(INVALID, marked ? col(INVALID).or(empty) : empty)
                        .withColumn(features, when(empty, oneToken(all.schema(), features, stage)).otherwise(col(features)));
                    marked = true;
                }
            }
            all = stage.transform(all);
        }
        before.remove(INVALID);
        List<Column> kept = new ArrayList<>();
        for (String c : rows.columns()) {
            kept.add(col(c));
        }
        for (StructField f : all.schema().fields()) {
            if (!before.contains(f.name()) && !f.name().equals(INVALID)) {
                Column c = format.equals("json") && f.dataType() instanceof VectorUDT
                    ? functions.vector_to_array(col(f.name()), "float64") : col(f.name());
                kept.add((marked ? when(col(INVALID), lit(null)).otherwise(c) : c)
                    .as(f.name()));
            }
        }
        return all.select(kept.toArray(new Column[0]));
    }

    /** The stages of a pipeline, or the model itself. */
    static List<Transformer> stages(Transformer transformer) {
        return transformer instanceof PipelineModel ? List.of(((PipelineModel) transformer).stages())
            : List.of(transformer);
    }

    /** The sequence column of an attention classifier (a stage with features and key-length columns), or null. */
    private static String tokensColumn(Transformer stage) {
        if (stage.hasParam("featuresCol") && stage.hasParam("keyLengthCol")) {
            return stage.getOrDefault(stage.getParam("featuresCol")).toString();
        }
        return null;
    }

    /** One token of zeros, as wide as the classifier's features and of the column's element type. */
    private static Column oneToken(StructType schema, String column, Transformer stage) {
        DataType type = schema.apply(column).dataType();
        int width = stage instanceof ClassificationModel ? ((ClassificationModel<?, ?>) stage).numFeatures() : 1;
        if (type instanceof ArrayType && ((ArrayType) type).elementType() instanceof ArrayType) {
            DataType number = ((ArrayType) ((ArrayType) type).elementType()).elementType();
            return array(array_repeat(lit(0).cast(number), width)).cast(type);
        }
        DataType number = type instanceof ArrayType ? ((ArrayType) type).elementType() : type;
        return array_repeat(lit(0).cast(number), width).cast(type);
    }

    /**
     * A failure naming a column the pipeline made (e.g. "column x has no token") with the input
     * column it was made from, and what --handle-invalid does with such rows.
     */
    static Exception inputColumns(Exception e, Transformer transformer, InputTable table) {
        if (transformer == null || table == null || !(e instanceof BadInputException) || e.getMessage() == null) {
            return e;
        }
        String message = e.getMessage();
        for (Transformer stage : stages(transformer)) {
            String features = tokensColumn(stage);
            if (features == null || table.has(features) || !message.contains("column " + features + " ")) {
                continue;
            }
            String source = sourceColumn(transformer, features, table);
            String shown = message.replace("column " + features + " has no token", "column " + source
                + " gives the model no token (empty, or no word it knows); --handle-invalid skip leaves such rows out, "
                + "keep gives them null predictions");
            return new BadInputException(shown.equals(message) ? message.replace("column " + features,
                "column " + source + " (made into " + features + " by the model)") : shown, e);
        }
        return e;
    }

    /** The input column a pipeline makes {@code column} from, following each stage's input column back. */
    private static String sourceColumn(Transformer transformer, String column, InputTable table) {
        String c = column;
        List<Transformer> stages = stages(transformer);
        for (int i = stages.size() - 1; i >= 0 && !table.has(c); i--) {
            Transformer stage = stages.get(i);
            if (stage.hasParam("outputCol") && c.equals(stage.getOrDefault(stage.getParam("outputCol")))
                && stage.hasParam("inputCol")) {
                Param<Object> in = stage.getParam("inputCol");
                c = String.valueOf(stage.getOrDefault(in));
            }
        }
        return c;
    }
}
