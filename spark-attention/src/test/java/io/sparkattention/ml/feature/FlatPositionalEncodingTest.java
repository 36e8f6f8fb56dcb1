package io.sparkattention.ml.feature;

import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The positional encodings on flat sequence columns ({@code array<float|double>} of L·W values,
 * W in the column's metadata): a flat output of the same width holding the nested output's
 * values, bit for bit.
 */
class FlatPositionalEncodingTest {

    private static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private static final DataType FLOATS = DataTypes.createArrayType(DataTypes.FloatType, false);

    private final SparkSession spark = SparkTestSession.get();

    /** Ragged rows (L = 0, 1, 5, 37) of q (L×16) and k (L×8), and a null row. */
    private Dataset<Row> nested() {
        RandomTensors rnd = new RandomTensors(5);
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", FLOAT_MATRIX)
            .add("k", FLOAT_MATRIX);
        List<Row> rows = new ArrayList<>();
        int[] lengths = {0, 1, 5, 37};
        for (int r = 0; r < lengths.length; r++) {
            int L = lengths[r];
            rows.add(RowFactory.create(r, Matrices.floats(rnd.normal(L * 16, 1), L, 16),
                Matrices.floats(rnd.normal(L * 8, 1), L, 8)));
        }
        rows.add(RowFactory.create(lengths.length, null, null));
        return spark.createDataFrame(rows, schema).repartition(2);
    }

    private static Dataset<Row> flat(Dataset<Row> nested, boolean doubles) {
        return nested.select(col("id"),
            SequenceLayout.flatten(doubles ? col("q").cast("array<array<double>>") : col("q"), "q", 16),
            SequenceLayout.flatten(col("k"), "k", 8));
    }

    @Test
    @DisplayName("sinusoidal on a flat float or double column: a flat output of the input's width with the nested "
        + "output's values, bit for bit; null stays null")
    void sinusoidal() {
        SinusoidalPositionalEncoding pe = new SinusoidalPositionalEncoding().setInputCol("q").setOutputCol("pos")
            .setPositionOffset(2);
        Dataset<Row> nested = nested();
        List<Row> expected = pe.transform(nested).orderBy("id").collectAsList();
        for (boolean doubles : new boolean[] {false, true}) {
            Dataset<Row> flat = flat(nested, doubles);
            Dataset<Row> out = pe.transform(flat);
            assertEquals(pe.transformSchema(flat.schema()), out.schema());
            assertEquals(FLOATS, out.schema().apply("pos").dataType());
            assertEquals(16, SequenceLayout.width(out.schema().apply("pos")));
            assertSameValues(expected, out.orderBy("id").collectAsList(), "pos");
        }
    }

    @Test
    @DisplayName("rotary on flat query (4 heads) and key (2 heads): flat outputs of their widths with the nested "
        + "outputs' values, bit for bit")
    void rotary() {
        RotaryPositionalEncoding rope = new RotaryPositionalEncoding().setQueryCol("q").setKeyCol("k").setNumHeads(4)
            .setNumKvHeads(2).setPositionOffset(1);
        Dataset<Row> nested = nested();
        List<Row> expected = rope.transform(nested).orderBy("id").collectAsList();
        Dataset<Row> flat = flat(nested, false);
        Dataset<Row> out = rope.transform(flat);
        assertEquals(rope.transformSchema(flat.schema()), out.schema());
        assertEquals(16, SequenceLayout.width(out.schema().apply(rope.getQueryOutputCol())));
        assertEquals(8, SequenceLayout.width(out.schema().apply(rope.getKeyOutputCol())));
        List<Row> got = out.orderBy("id").collectAsList();
        assertSameValues(expected, got, rope.getQueryOutputCol());
        assertSameValues(expected, got, rope.getKeyOutputCol());
    }

    @Test
    @DisplayName("a flat column without a width is refused naming the column and the metadata key")
    void flatWithoutWidth() {
        Dataset<Row> bare = spark.createDataFrame(List.of(RowFactory.create((Object) new float[6])),
            new StructType().add("q", FLOATS));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new SinusoidalPositionalEncoding().setInputCol("q").setOutputCol("pos").transform(bare));
        assertEquals("column q (inputCol) is a flat array<float> without a width: give the column metadata "
            + "sequence_width (SequenceLayout.flatten or widthMetadata)", e.getMessage());
    }

    /** The flat column {@code column} of {@code got} holds the nested one of {@code expected}, row by row, as bits. */
    private static void assertSameValues(List<Row> expected, List<Row> got, String column) {
        assertEquals(expected.size(), got.size());
        for (int r = 0; r < expected.size(); r++) {
            Row e = expected.get(r), g = got.get(r);
            if (e.isNullAt(e.fieldIndex(column))) {
                assertNull(g.get(g.fieldIndex(column)), "row " + r);
                continue;
            }
            float[] want = Matrices.flatten(e.getList(e.fieldIndex(column)));
            List<Float> have = g.getList(g.fieldIndex(column));
            assertEquals(want.length, have.size(), "row " + r);
            for (int i = 0; i < want.length; i++) {
                assertEquals(Float.floatToRawIntBits(want[i]), Float.floatToRawIntBits(have.get(i)),
                    "row " + r + ", value " + i);
            }
        }
    }
}
