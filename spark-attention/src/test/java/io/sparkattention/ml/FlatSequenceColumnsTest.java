package io.sparkattention.ml;

import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flat sequence columns ({@code array<float>} of L·W values) in and out of the attention stages:
 * the same numbers as the nested layout, the width from metadata, weights or {@code sequenceWidth},
 * and errors that name the column.
 */
class FlatSequenceColumnsTest {

    private static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private static final DataType FLOATS = DataTypes.createArrayType(DataTypes.FloatType);
    private static final DataType DOUBLES = DataTypes.createArrayType(DataTypes.DoubleType);

    private final SparkSession spark = SparkTestSession.get();

    /** Ragged rows of nested q (L×H·d), k (S×Hkv·d), v (S×Hkv·dv), with a key-length column. */
    private Dataset<Row> nestedRows(int heads, int kvHeads, int d, int dv, long seed) {
        RandomTensors rnd = new RandomTensors(seed);
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", FLOAT_MATRIX)
            .add("k", FLOAT_MATRIX).add("v", FLOAT_MATRIX).add("len", DataTypes.IntegerType);
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < 10; r++) {
            int L = rnd.pick(0, 1, 7, 33, 70), S = rnd.pick(1, 9, 64, 100);
            rows.add(RowFactory.create(r, Matrices.floats(rnd.normal(L * heads * d, 1), L, heads * d),
                Matrices.floats(rnd.normal(S * kvHeads * d, 1), S, kvHeads * d),
                Matrices.floats(rnd.normal(S * kvHeads * dv, 1), S, kvHeads * dv), rnd.between(0, S)));
        }
        return spark.createDataFrame(rows, schema).repartition(3);
    }

    private static float[] floats(Row row, String column) {
        List<?> values = row.getList(row.fieldIndex(column));
        float[] out = new float[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ((Number) values.get(i)).floatValue();
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"batch", "head", "sequence"})
    @DisplayName("scaled dot-product attention on flat columns gives the nested layout's numbers, flat, with its width")
    void scaledDotProductFlatMatchesNested(String strategy) {
        int heads = 4, kvHeads = 2, d = 8, dv = 6;
        Dataset<Row> nested = nestedRows(heads, kvHeads, d, dv, 11);
        Dataset<Row> flat = nested.select(col("id"), SequenceLayout.flatten(col("q"), "q", heads * d),
            SequenceLayout.flatten(col("k"), "k", kvHeads * d), SequenceLayout.flatten(col("v"), "v", kvHeads * dv),
            col("len"));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k")
            .setValueCol("v").setKeyLengthCol("len").setNumHeads(heads).setNumKvHeads(kvHeads).setCausal(true)
            .setBlockSize(16).setStrategy(strategy);
        List<Row> expected = sdpa.transform(nested).orderBy("id").collectAsList();
        Dataset<Row> out = sdpa.transform(flat);
        StructField output = out.schema().apply("attn_output");
        assertEquals(FLOATS.asNullable(), output.dataType().asNullable());
        assertEquals(heads * dv, SequenceLayout.width(output), "H·dv values per position, in the metadata");
        List<Row> got = out.orderBy("id").collectAsList();
        for (int r = 0; r < expected.size(); r++) {
            assertArrayEquals(Matrices.flatten(expected.get(r).getList(expected.get(r).fieldIndex("attn_output"))),
                floats(got.get(r), "attn_output"), "row " + r);
        }
    }

    @Test
    @DisplayName("auto measures flat rows by L = values / width, and outputLayout chooses nested or flat either way")
    void autoStrategyAndExplicitLayouts() {
        Dataset<Row> nested = nestedRows(2, 2, 4, 4, 12);
        Dataset<Row> flat = nested.select(col("id"), SequenceLayout.flatten(col("q"), "q", 8),
            SequenceLayout.flatten(col("k"), "k", 8), SequenceLayout.flatten(col("v"), "v", 8));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k")
            .setValueCol("v").setNumHeads(2);
        List<Row> reference = sdpa.transform(nested).orderBy("id").collectAsList();
        List<Row> nestedFromFlat = sdpa.copy(new org.apache.spark.ml.param.ParamMap()).setOutputLayout("nested")
            .transform(flat).orderBy("id").collectAsList();
        Dataset<Row> flatFromNested = sdpa.copy(new org.apache.spark.ml.param.ParamMap()).setOutputLayout("flat")
            .transform(nested);
        assertEquals(-1, SequenceLayout.width(flatFromNested.schema().apply("attn_output")),
            "a nested value column's width is known only per row, so no width metadata");
        List<Row> flatRows = flatFromNested.orderBy("id").collectAsList();
        for (int r = 0; r < reference.size(); r++) {
            float[] want = Matrices.flatten(reference.get(r).getList(reference.get(r).fieldIndex("attn_output")));
            assertArrayEquals(want, Matrices.flatten(nestedFromFlat.get(r).getList(4)), "nested from flat, row " + r);
            assertArrayEquals(want, floats(flatRows.get(r), "attn_output"), "flat from nested, row " + r);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"metadata", "weights", "param"})
    @DisplayName("a PyTorch layer reads flat float or double input with its width from metadata, weights or param")
    void multiHeadModelFlat(String widthFrom) {
        int E = 12, heads = 3;
        MultiHeadAttentionModel model = new MultiHeadAttentionModel(
            MultiHeadAttentionInit.pytorchDefault(E, heads, E, E, true, 5L)).setCausal(true);
        Dataset<Row> nested = nestedRows(1, 1, E, E, 13).select(col("id"), col("q"));
        Dataset<Row> flat = nested.select(col("id"), widthFrom.equals("metadata")
            ? SequenceLayout.flatten(col("q"), "q", E)
            : org.apache.spark.sql.functions.flatten(col("q")).cast(widthFrom.equals("param") ? DOUBLES : FLOATS)
                .as("q"));
        if (widthFrom.equals("param")) {
            model.setSequenceWidth(E);
        }
        model.setQueryCol("q");
        List<Row> expected = model.transform(nested).orderBy("id").collectAsList();
        Dataset<Row> out = model.transform(flat);
        assertEquals(E, SequenceLayout.width(out.schema().apply("attn_output")));
        assertEquals(out.schema(), model.transformSchema(flat.schema()));
        List<Row> got = out.orderBy("id").collectAsList();
        for (int r = 0; r < expected.size(); r++) {
            float[] want = Matrices.flatten(expected.get(r).getList(2));
            // float → double → float is exact: the double column holds the same inputs
            assertArrayEquals(want, floats(got.get(r), "attn_output"), "row " + r);
        }
    }

    @Test
    @DisplayName("MultiHeadAttention.fit takes embed_dim from a flat column's width")
    void estimatorResolvesFlatWidths() {
        Dataset<Row> flat = nestedRows(1, 1, 8, 8, 14)
            .select(SequenceLayout.flatten(col("q"), "query", 8));
        MultiHeadAttentionModel model = new MultiHeadAttention().setNumHeads(2).fit(flat);
        assertEquals(8, model.weights().embedDim());
        assertEquals(10, model.transform(flat).count());
    }

    @Test
    @DisplayName("schema errors: no width, widths that disagree, non-float elements — each names the column")
    void schemaErrors() {
        StructType noWidth = new StructType().add("query", FLOATS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().transformSchema(noWidth));
        assertEquals("column query (queryCol) is a flat array<float> without a width: give the column metadata "
            + "sequence_width (SequenceLayout.flatten or widthMetadata) or set sequenceWidth", e.getMessage());

        StructType withWidth = new StructType().add(new StructField("query", FLOATS, true,
            SequenceLayout.widthMetadata(8)));
        e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().setSequenceWidth(4).transformSchema(withWidth));
        assertEquals("column query (queryCol) is a flat array<float> whose metadata gives 8 values per position, but "
            + "sequenceWidth is 4", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttentionModel(
            MultiHeadAttentionInit.pytorchDefault(6, 2, 6, 6, true, 1L)).transformSchema(withWidth));
        assertEquals("column query (queryCol) is a flat array<float> whose metadata gives 8 values per position, but "
            + "the layer's weights take 6", e.getMessage());

        StructType ints = new StructType().add("query", DataTypes.createArrayType(DataTypes.IntegerType));
        e = assertThrows(IllegalArgumentException.class, () -> new ScaledDotProductAttention().transformSchema(ints));
        assertTrue(e.getMessage().endsWith("or a flat array<float|double> of L·W values, found array<int>"),
            e.getMessage());

        StructType badMeta = new StructType().add(new StructField("query", FLOATS, true,
            Metadata.fromJson("{\"sequence_width\": 0}")));
        e = assertThrows(IllegalArgumentException.class, () -> new ScaledDotProductAttention().transformSchema(badMeta));
        assertEquals("column query: metadata sequence_width is 0, expected a width >= 1 (queryCol)", e.getMessage());
    }

    @Test
    @DisplayName("data errors: a length that is not a multiple of the width, a null, a NaN — each names row and column")
    void dataErrors() {
        StructType schema = new StructType().add("id", DataTypes.StringType)
            .add(new StructField("query", FLOATS, true, SequenceLayout.widthMetadata(2)));
        List<Row> rows = List.of(
            RowFactory.create("r0", new float[] {1, 2, 3, 4}),
            RowFactory.create("r1", new float[] {1, 2, 3}),
            RowFactory.create("r2", new Float[] {1f, 2f, null, 4f}),
            RowFactory.create("r3", new float[] {1, 2, 3, Float.NaN}));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setRowIdCol("id");
        String[] expected = {
            "row r1: column query has 3 values, not a multiple of its width 2 (the values per position)",
            "row r2: column query has a null at position 1, value 0",
            "row r3: column query has NaN at position 1, value 1 (handleInvalid=keep lets it propagate)"};
        for (int bad = 1; bad <= 3; bad++) {
            Dataset<Row> df = spark.createDataFrame(List.of(rows.get(0), rows.get(bad)), schema).repartition(1);
            Exception e = assertThrows(Exception.class, () -> sdpa.transform(df).collect());
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            assertEquals(expected[bad - 1], root.getMessage());
        }
    }

    @Test
    @DisplayName("an empty flat sequence is L = 0: an empty output; a null query gives a null output")
    void emptyAndNull() {
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
            .add(new StructField("query", FLOATS, true, SequenceLayout.widthMetadata(4)));
        List<Row> rows = List.of(RowFactory.create(0, new float[0]), RowFactory.create(1, null));
        List<Row> out = new ScaledDotProductAttention().setNumHeads(2).transform(spark.createDataFrame(rows, schema))
            .orderBy("id").collectAsList();
        assertEquals(0, out.get(0).getList(2).size());
        assertNull(out.get(1).get(2));
    }

    @Test
    @DisplayName("flat output type is array<float> without nulls; weights stay nested")
    void outputTypes() {
        StructType schema = new StructType().add(new StructField("query", FLOATS, true,
            SequenceLayout.widthMetadata(4)));
        StructType out = new ScaledDotProductAttention().setWeightsCol("w").transformSchema(schema);
        assertEquals(new ArrayType(DataTypes.FloatType, false), out.apply("attn_output").dataType());
        assertEquals(MatrixType.OUTPUT, out.apply("w").dataType());
    }
}
