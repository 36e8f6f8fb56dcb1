package io.sparkattention.ml;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;

/**
 * The one schema check of the attention stages ({@code validateAndTransformSchema} in MLlib's
 * words): every input column exists with an accepted type, the output columns are new, the head
 * counts fit. {@code transformSchema} and {@code transform} both go through it, so they agree,
 * and every error names the column with the expected and found types before any job runs.
 */
final class StageSchema {

    private StageSchema() {
    }

    /** The input columns of {@code params} resolved against {@code schema}. */
    static StageJob.StageColumns columns(AttentionParams<?> params, StructType schema) {
        String query = params.getQueryCol();
        String key = params.effectiveKeyCol();
        String value = params.effectiveValueCol();
        MatrixType queryType = matrix(schema, query, "queryCol");
        MatrixType keyType = matrix(schema, key, "keyCol");
        MatrixType valueType = matrix(schema, value, "valueCol");

        String keyLength = optional(params.getKeyLengthCol());
        if (keyLength != null) {
            DataType t = field(schema, keyLength, "keyLengthCol").dataType();
            if (!(t instanceof IntegralType)) {
                throw new IllegalArgumentException("column " + keyLength + " (keyLengthCol): expected an integer type, "
                    + "found " + t.simpleString());
            }
        }
        PlaneColumn mask = null;
        String maskName = optional(params.getAttnMaskCol());
        if (maskName != null) {
            DataType t = field(schema, maskName, "attnMaskCol").dataType();
            mask = PlaneColumn.mask(maskName, t);
            if (mask == null) {
                throw new IllegalArgumentException("column " + maskName + " (attnMaskCol): expected "
                    + "array<array<boolean>> (L×S) or array<array<array<boolean>>> (H×L×S), found " + t.simpleString());
            }
        }
        PlaneColumn bias = null;
        String biasName = optional(params.getAttnBiasCol());
        if (biasName != null) {
            DataType t = field(schema, biasName, "attnBiasCol").dataType();
            bias = PlaneColumn.bias(biasName, t);
            if (bias == null) {
                throw new IllegalArgumentException("column " + biasName + " (attnBiasCol): expected "
                    + "array<array<float|double>> (L×S) or array<array<array<float|double>>> (H×L×S), found "
                    + t.simpleString());
            }
        }
        String rowId = optional(params.getRowIdCol());
        if (rowId != null) {
            field(schema, rowId, "rowIdCol");
        }
        return new StageJob.StageColumns(query, queryType, key, keyType, value, valueType, keyLength, mask, bias,
            rowId);
    }

    /** The columns the stage adds: output, and weights when requested. */
    static StructType outputStruct(AttentionParams<?> params) {
        StructType out = new StructType().add(params.getOutputCol(), MatrixType.OUTPUT, true);
        if (!params.getWeightsCol().isEmpty()) {
            out = out.add(params.getWeightsCol(), PlaneColumn.weightsType(!params.getAverageWeights()), true);
        }
        return out;
    }

    /** Checks {@code schema} against {@code params} and returns the schema {@code transform} produces. */
    static StructType transformSchema(AttentionParams<?> params, StructType schema) {
        checkHeads(params);
        columns(params, schema);
        StructType out = outputStruct(params);
        if (out.size() == 2 && out.fields()[0].name().equals(out.fields()[1].name())) {
            throw new IllegalArgumentException("outputCol and weightsCol are both " + params.getOutputCol());
        }
        for (StructField f : out.fields()) {
            checkNewColumn(schema, f.name());
        }
        StructType result = schema;
        for (StructField f : out.fields()) {
            result = result.add(f);
        }
        return result;
    }

    static void checkHeads(AttentionParams<?> params) {
        int h = params.getNumHeads(), kv = params.effectiveNumKvHeads();
        if (h % kv != 0) {
            throw new IllegalArgumentException("numKvHeads (" + kv + ") must divide numHeads (" + h + ")");
        }
    }

    /** The matrix type of an input column, or an error naming the column, expected and found types. */
    static MatrixType matrix(StructType schema, String column, String param) {
        DataType t = field(schema, column, param).dataType();
        MatrixType type = MatrixType.of(t);
        if (type == null) {
            throw new IllegalArgumentException("column " + column + " (" + param + "): expected " + MatrixType.ACCEPTED
                + ", found " + t.simpleString());
        }
        return type;
    }

    static StructField field(StructType schema, String column, String param) {
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("column " + column + " (" + param + ") does not exist; the input has "
                + String.join(", ", schema.fieldNames()));
        }
        return schema.apply(column);
    }

    /** Refuses an output column that already exists: a stage never replaces a column. */
    static void checkNewColumn(StructType schema, String column) {
        if (Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("output column " + column + " already exists in the input");
        }
    }

    private static String optional(String name) {
        return name == null || name.isEmpty() ? null : name;
    }
}
