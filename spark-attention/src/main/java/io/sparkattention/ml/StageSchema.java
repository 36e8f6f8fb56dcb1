package io.sparkattention.ml;

import io.sparkattention.kernel.Heads;
import io.sparkattention.rows.PlaneColumn;
import io.sparkattention.rows.SequenceColumns;
import io.sparkattention.rows.SequenceDecoder;

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
public final class StageSchema {

    private StageSchema() {
    }

    /** The input columns of {@code params} resolved against {@code schema}, for a stage without weights. */
    static AttentionStageJob.StageColumns columns(AttentionParams<?> params, StructType schema) {
        return columns(params, schema, null);
    }

    /**
     * The input columns of {@code params} resolved against {@code schema}.
     *
     * @param layerWidths for a projecting layer, {E, kdim, vdim} (an entry below 1 when the
     *                    weights do not exist yet); null for scaled dot-product attention
     */
    static AttentionStageJob.StageColumns columns(AttentionParams<?> params, StructType schema, int[] layerWidths) {
        String query = params.getQueryCol();
        String key = params.effectiveKeyCol();
        String value = params.effectiveValueCol();
        int w = params.getSequenceWidth();
        SequenceDecoder queryType = sequence(schema, query, "queryCol", layerWidth(layerWidths, 0), w);
        SequenceDecoder keyType = sequence(schema, key, "keyCol", layerWidth(layerWidths, 1), w);
        SequenceDecoder valueType = sequence(schema, value, "valueCol", layerWidth(layerWidths, 2), w);

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
        String rowId = rowIdCol(params, schema);
        return new AttentionStageJob.StageColumns(query, queryType, key, keyType, value, valueType, keyLength, mask, bias,
            rowId);
    }

    /**
     * The columns the stage adds: output, and weights when requested. The output is flat when
     * {@code outputLayout} is flat, or auto with a flat query column; a flat output carries its
     * width in its metadata when it is known before running: E for a projecting layer (from the
     * weights or the flat query), H/Hkv times the flat value width for scaled dot-product attention.
     *
     * @param layerWidths as for {@link #columns(AttentionParams, StructType, int[])}
     */
    static StructType outputStruct(AttentionParams<?> params, AttentionStageJob.StageColumns columns, int[] layerWidths) {
        String layout = params.getOutputLayout();
        boolean flat = "flat".equals(layout) || ("auto".equals(layout) && columns.query.type.fixedWidth() > 0);
        int width = -1;
        if (flat && layerWidths != null) {
            width = layerWidths[0] >= 1 ? layerWidths[0] : columns.query.type.fixedWidth();
        } else if (flat) {
            int v = columns.value.type.fixedWidth();
            width = v < 1 ? -1 : v / params.effectiveNumKvHeads() * params.getNumHeads();
        }
        StructType out = new StructType().add(SequenceColumns.outputField(params.getOutputCol(), flat, width));
        if (!params.getWeightsCol().isEmpty()) {
            out = out.add(params.getWeightsCol(), PlaneColumn.weightsType(!params.getAverageWeights()), true);
        }
        return out;
    }

    /** Checks {@code schema} against {@code params} and returns the schema {@code transform} produces. */
    static StructType transformSchema(AttentionParams<?> params, StructType schema) {
        return transformSchema(params, schema, null);
    }

    /**
     * Checks {@code schema} against {@code params} and returns the schema {@code transform} produces.
     *
     * @param layerWidths as for {@link #columns(AttentionParams, StructType, int[])}
     */
    static StructType transformSchema(AttentionParams<?> params, StructType schema, int[] layerWidths) {
        checkHeads(params);
        StructType out = outputStruct(params, columns(params, schema, layerWidths), layerWidths);
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
        Heads.checkGroups(h, kv);
    }

    /** How a sequence input column is decoded ({@link SequenceColumns#decoder}). */
    static SequenceDecoder sequence(StructType schema, String column, String param, int layerWidth,
                                    int sequenceWidth) {
        return SequenceColumns.decoder(field(schema, column, param), param, layerWidth, sequenceWidth);
    }

    private static int layerWidth(int[] layerWidths, int i) {
        return layerWidths == null ? -1 : layerWidths[i];
    }

    public static StructField field(StructType schema, String column, String param) {
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("column " + column + " (" + param + ") does not exist; the input has "
                + String.join(", ", schema.fieldNames()));
        }
        return schema.apply(column);
    }

    /**
     * The stage's row id column ({@code rowIdCol}), checked to exist, or null when it names none.
     *
     * @throws IllegalArgumentException naming the column and the param when the input lacks it
     */
    public static String rowIdCol(InvalidRowParams<?> stage, StructType schema) {
        String rowId = optional(stage.getRowIdCol());
        if (rowId != null) {
            field(schema, rowId, "rowIdCol");
        }
        return rowId;
    }

    /** Refuses an output column that already exists: a stage never replaces a column. */
    public static void checkNewColumn(StructType schema, String column) {
        if (Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("output column " + column + " already exists in the input");
        }
    }

    private static String optional(String name) {
        return name == null || name.isEmpty() ? null : name;
    }
}
