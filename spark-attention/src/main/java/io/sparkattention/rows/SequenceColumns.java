package io.sparkattention.rows;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;

/**
 * Sequence columns in either layout, for every stage: how an input column is decoded (nested
 * {@link MatrixType}, or {@link FlatSequence} with its width resolved) and how an output column
 * of the same layout is declared and encoded.
 */
public final class SequenceColumns {

    /** {@code sequenceWidth} argument of a stage that has no such param: the width comes from metadata or weights. */
    public static final int NO_WIDTH_PARAM = -1;

    private SequenceColumns() {
    }

    /**
     * How a sequence input column is decoded: a nested matrix type, or flat with a width from its
     * metadata ({@link SequenceLayout#WIDTH_KEY}), the layer's weights or the stage's
     * {@code sequenceWidth} param (in that order; those given must agree).
     *
     * @param field         the column
     * @param param         the param naming it, for error messages
     * @param layerWidth    the width the stage's weights take, or below 1 when none fixes it
     * @param sequenceWidth the stage's {@code sequenceWidth} (0: unset), or {@link #NO_WIDTH_PARAM}
     * @return the decoder
     * @throws IllegalArgumentException naming the column and param when the type is not a sequence,
     *     the widths disagree or a flat column has none
     */
    public static SequenceDecoder decoder(StructField field, String param, int layerWidth, int sequenceWidth) {
        String column = field.name();
        DataType t = field.dataType();
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
            meta = SequenceLayout.width(field);
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
                + SequenceLayout.WIDTH_KEY + " (SequenceLayout.flatten or widthMetadata)"
                + (sequenceWidth == NO_WIDTH_PARAM ? "" : " or set sequenceWidth"));
        }
        return FlatSequence.of(t, width);
    }

    /**
     * An output column: flat {@code array<float>} carrying {@code width} in its metadata (when it
     * is known, ≥ 1), or nested {@code array<array<float>>}.
     */
    public static StructField outputField(String name, boolean flat, int width) {
        if (flat) {
            return new StructField(name, FlatSequence.OUTPUT, true,
                width >= 1 ? SequenceLayout.widthMetadata(width) : Metadata.empty());
        }
        return new StructField(name, MatrixType.OUTPUT, true, Metadata.empty());
    }

    /** The output column of the layout {@code input} is decoded from, {@code input}'s width when flat. */
    public static StructField outputLike(String name, SequenceDecoder input) {
        return outputField(name, isFlat(input), input.fixedWidth());
    }

    /** Whether {@code decoder} reads a flat column. */
    public static boolean isFlat(SequenceDecoder decoder) {
        return decoder.fixedWidth() >= 1;
    }

    /**
     * One row's {@code rows×cols} row-major matrix as a Catalyst value of the output layout
     * ({@link #outputField}).
     */
    public static Object encode(float[] values, int rows, int cols, boolean flat) {
        return flat ? FlatSequence.encode(values, 0, rows * cols) : NestedArrays.matrix(values, 0, rows, cols);
    }
}
