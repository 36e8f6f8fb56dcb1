package io.sparkattention.ml;

import io.sparkattention.rows.FlatSequence;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.PlaneColumn;
import io.sparkattention.rows.SequenceDecoder;
import io.sparkattention.rows.SequenceLayout;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.Metadata;
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
    static StageJob.StageColumns columns(AttentionParams<?> params, StructType schema) {
        return columns(params, schema, null);
    }

    /**
     * The input columns of {@code params} resolved against {@code schema}.
     *
     * @param layerWidths for a projecting layer, {E, kdim, vdim} (an entry below 1 when the
     *                    weights do not exist yet); null for scaled dot-product attention
     */
    static StageJob.StageColumns columns(AttentionParams<?> params, StructType schema, int[] layerWidths) {
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
        String rowId = optional(params.getRowIdCol());
        if (rowId != null) {
            field(schema, rowId, "rowIdCol");
        }
        return new StageJob.StageColumns(query, queryType, key, keyType, value, valueType, keyLength, mask, bias,
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
    static StructType outputStruct(AttentionParams<?> params, StageJob.StageColumns columns, int[] layerWidths) {
        String layout = params.getOutputLayout();
        boolean flat = "flat".equals(layout) || ("auto".equals(layout) && columns.query.type.fixedWidth() > 0);
        StructField output;
        if (flat) {
            int width;
            if (layerWidths != null) {
                width = layerWidths[0] >= 1 ? layerWidths[0] : columns.query.type.fixedWidth();
            } else {
                int v = columns.value.type.fixedWidth();
                width = v < 1 ? -1 : v / params.effectiveNumKvHeads() * params.getNumHeads();
            }
            output = new StructField(params.getOutputCol(), FlatSequence.OUTPUT, true,
                width >= 1 ? SequenceLayout.widthMetadata(width) : Metadata.empty());
        } else {
            output = new StructField(params.getOutputCol(), MatrixType.OUTPUT, true, Metadata.empty());
        }
        StructType out = new StructType().add(output);
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
        if (h % kv != 0) {
            throw new IllegalArgumentException("numKvHeads (" + kv + ") must divide numHeads (" + h + ")");
        }
    }

    /**
     * How a sequence input column is decoded: a nested matrix type, or flat with a width from its
     * metadata, the layer's weights or {@code sequenceWidth} (in that order; those given must agree).
     */
    static SequenceDecoder sequence(StructType schema, String column, String param, int layerWidth,
                                    int sequenceWidth) {
        StructField f = field(schema, column, param);
        DataType t = f.dataType();
        MatrixType nested = MatrixType.of(t);
        if (nested != null) {
            return nested;
        }
        if (!FlatSequence.isFlat(t)) {
            throw new IllegalArgumentException("column " + column + " (" + param + "): expected " + MatrixType.ACCEPTED
                + ", or a flat array<float|double> of L·W values, found " + t.simpleString());
        }
        int meta;
        try {
            meta = SequenceLayout.width(f);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (" + param + ")");
        }
        String flat = "column " + column + " (" + param + ") is a flat " + t.simpleString();
        if (meta >= 1 && layerWidth >= 1 && meta != layerWidth) {
            throw new IllegalArgumentException(flat + " whose metadata gives " + meta + " values per position, but "
                + "the layer's weights take " + layerWidth);
        }
        if (meta >= 1 && sequenceWidth >= 1 && meta != sequenceWidth) {
            throw new IllegalArgumentException(flat + " whose metadata gives " + meta + " values per position, but "
                + "sequenceWidth is " + sequenceWidth);
        }
        if (meta < 1 && layerWidth >= 1 && sequenceWidth >= 1 && layerWidth != sequenceWidth) {
            throw new IllegalArgumentException(flat + ": sequenceWidth is " + sequenceWidth + " but the layer's "
                + "weights take " + layerWidth + " values per position");
        }
        int width = meta >= 1 ? meta : layerWidth >= 1 ? layerWidth : sequenceWidth;
        if (width < 1) {
            throw new IllegalArgumentException(flat + " without a width: give the column metadata "
                + SequenceLayout.WIDTH_KEY + " (SequenceLayout.flatten or widthMetadata) or set sequenceWidth");
        }
        return FlatSequence.of(t, width);
    }

    private static int layerWidth(int[] layerWidths, int i) {
        return layerWidths == null ? -1 : layerWidths[i];
    }

    /** The matrix type of an input column, or an error naming the column, expected and found types. */
    public static MatrixType matrix(StructType schema, String column, String param) {
        DataType t = field(schema, column, param).dataType();
        MatrixType type = MatrixType.of(t);
        if (type == null) {
            throw new IllegalArgumentException("column " + column + " (" + param + "): expected " + MatrixType.ACCEPTED
                + ", found " + t.simpleString());
        }
        return type;
    }

    public static StructField field(StructType schema, String column, String param) {
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("column " + column + " (" + param + ") does not exist; the input has "
                + String.join(", ", schema.fieldNames()));
        }
        return schema.apply(column);
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
