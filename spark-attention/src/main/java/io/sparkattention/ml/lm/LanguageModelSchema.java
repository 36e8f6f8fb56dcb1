package io.sparkattention.ml.lm;

import io.sparkattention.ml.StageSchema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The columns {@link GptLanguageModel} adds: scoring's {@code log_prob} (double), {@code tokens}
 * (int), {@code perplexity} (double) and optionally the per-token log-probabilities
 * ({@code array<double>}); generation's new ids ({@code array<int>}) and optionally their text
 * (string). Each is nullable (a row kept without ids gets nulls) and must be new.
 */
final class LanguageModelSchema {

    private LanguageModelSchema() {
    }

    /**
     * Checks the ids column: it exists and holds {@code array<int>} or {@code array<bigint>}.
     *
     * @throws IllegalArgumentException naming the column and param
     */
    static void checkIds(StructType schema, String column) {
        DataType type = StageSchema.field(schema, column, "inputCol").dataType();
        DataType element = type instanceof ArrayType ? ((ArrayType) type).elementType() : null;
        if (!DataTypes.IntegerType.equals(element) && !DataTypes.LongType.equals(element)) {
            throw new IllegalArgumentException("column " + column + " (inputCol): expected array<int> or array<bigint> "
                + "token ids, found " + type.simpleString());
        }
    }

    /** The scored schema: the input's columns, then the scoring columns. */
    static StructType scored(StructType schema, GptLanguageModel model) {
        List<StructField> added = new ArrayList<>(List.of(
            field(model.getOutputCol(), "outputCol", DataTypes.DoubleType),
            field(model.getTokensCol(), "tokensCol", DataTypes.IntegerType),
            field(model.getPerplexityCol(), "perplexityCol", DataTypes.DoubleType)));
        if (model.getTokenLogProbs()) {
            added.add(field(model.getTokenLogProbsCol(), "tokenLogProbsCol",
                DataTypes.createArrayType(DataTypes.DoubleType, false)));
        }
        return add(schema, added, "outputCol, tokensCol, perplexityCol, tokenLogProbsCol");
    }

    /** The generated schema: the input's columns, then the new ids and (with {@code text}) their text. */
    static StructType generated(StructType schema, GptLanguageModel model, boolean text) {
        List<StructField> added = new ArrayList<>(List.of(field(model.getGeneratedIdsCol(), "generatedIdsCol",
            DataTypes.createArrayType(DataTypes.IntegerType, false))));
        if (text) {
            added.add(field(model.getGeneratedTextCol(), "generatedTextCol", DataTypes.StringType));
        }
        String key = model.getRowKeyCol();
        if (!key.isEmpty()) {
            if (!Arrays.asList(schema.fieldNames()).contains(key)) {
                throw new IllegalArgumentException("column " + key + " (rowKeyCol) does not exist; the input has "
                    + String.join(", ", schema.fieldNames()));
            }
            var type = schema.apply(key).dataType();
            if (!type.equals(DataTypes.IntegerType) && !type.equals(DataTypes.LongType)) {
                throw new IllegalArgumentException("column " + key + " (rowKeyCol): expected int or bigint, found "
                    + type.simpleString());
            }
        }
        return add(schema, added, "generatedIdsCol, generatedTextCol");
    }

    private static StructField field(String name, String param, DataType type) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(param + " is empty: the column needs a name");
        }
        return DataTypes.createStructField(name, type, true);
    }

    private static StructType add(StructType schema, List<StructField> added, String params) {
        Set<String> names = new HashSet<>(Arrays.asList(schema.fieldNames()));
        StructType result = schema;
        for (StructField f : added) {
            if (!names.add(f.name())) {
                throw new IllegalArgumentException("output column " + f.name() + " already exists in the input or is "
                    + "named twice (" + params + ")");
            }
            result = result.add(f);
        }
        return result;
    }
}
