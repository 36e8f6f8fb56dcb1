package io.sparkattention.rows;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;

/**
 * Flat sequence columns: a sequence of L positions of width W stored as one {@code array<float>}
 * of L·W values (position {@code i} at {@code [i·W, (i+1)·W)}) instead of an
 * {@code array<array<float>>}: one array per row instead of L, which the attention stages read
 * and write with one copy.
 *
 * <p>The width travels in the column's metadata ({@link #widthMetadata}); the attention stages write
 * it on their flat outputs and read it on their inputs, and fall back to the layer's own width
 * ({@code MultiHeadAttentionModel}) or the {@code sequenceWidth} param.
 *
 * <pre>{@code
 * Dataset<Row> flat = df.withColumn("query", SequenceLayout.flatten(col("query"), "query", 768));
 * model.setOutputLayout("flat").transform(flat);   // attn_output: array<float>, width 768
 * }</pre>
 */
public final class SequenceLayout {

    /** The metadata key of the width (values per position) of a flat sequence column. */
    public static final String WIDTH_KEY = "sequence_width";

    private SequenceLayout() {
    }

    /**
     * Metadata saying a flat column holds {@code width} values per position.
     *
     * @param width values per position (≥ 1)
     * @return the metadata
     */
    public static Metadata widthMetadata(int width) {
        if (width < 1) {
            throw new IllegalArgumentException("sequence width must be >= 1, got " + width);
        }
        return new MetadataBuilder().putLong(WIDTH_KEY, width).build();
    }

    /**
     * A nested {@code array<array<float|double>>} column flattened to L·W values, named
     * {@code name} and carrying its width.
     *
     * @param nested the nested column
     * @param name   the result's name
     * @param width  values per position (every row of the nested column must have this many)
     * @return the flat column
     */
    public static Column flatten(Column nested, String name, int width) {
        return functions.flatten(nested).as(name, widthMetadata(width));
    }

    /**
     * The width a column's metadata gives, or -1 when it gives none.
     *
     * @param field a schema field
     * @return the width, or -1
     * @throws IllegalArgumentException when the metadata holds a width below 1 or beyond an int
     */
    public static int width(StructField field) {
        Metadata m = field.metadata();
        if (!m.contains(WIDTH_KEY)) {
            return -1;
        }
        long w;
        try {
            w = m.getLong(WIDTH_KEY);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("column " + field.name() + ": metadata " + WIDTH_KEY
                + " is not an integer: " + m.json());
        }
        if (w < 1 || w > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("column " + field.name() + ": metadata " + WIDTH_KEY + " is " + w
                + ", expected a width >= 1");
        }
        return (int) w;
    }
}
