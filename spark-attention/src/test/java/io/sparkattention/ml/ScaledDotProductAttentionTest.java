package io.sparkattention.ml;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.testing.Fixtures;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.NaiveAttention;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ScaledDotProductAttention on DataFrames: fixtures, random rows vs the float64 reference, errors. */
class ScaledDotProductAttentionTest {

    private static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private final SparkSession spark = SparkTestSession.get();

    @ParameterizedTest
    @ValueSource(strings = {"sdpa_seed_plain", "sdpa_seed_causal", "sdpa_seed_cross_long"})
    @DisplayName("the seed notebook's fixtures: one row per (batch, head), output and weights")
    void matchesSeedFixtures(String name) throws IOException {
        SafeTensors st = Fixtures.open(name);
        long[] qs = st.shape("input.query"), ks = st.shape("input.key"), vs = st.shape("input.value");
        int bh = (int) qs[0], L = (int) qs[1], d = (int) qs[2], S = (int) ks[1], dv = (int) vs[2];
        float[] q = st.floats("input.query"), k = st.floats("input.key"), v = st.floats("input.value");
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < bh; r++) {
            rows.add(RowFactory.create(r,
                Matrices.floats(Arrays.copyOfRange(q, r * L * d, (r + 1) * L * d), L, d),
                Matrices.floats(Arrays.copyOfRange(k, r * S * d, (r + 1) * S * d), S, d),
                Matrices.floats(Arrays.copyOfRange(v, r * S * dv, (r + 1) * S * dv), S, dv)));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
            .add("query", FLOAT_MATRIX).add("key", FLOAT_MATRIX).add("value", FLOAT_MATRIX);
        boolean causal = Fixtures.config(st).get("causal").asBoolean();
        boolean hasWeights = st.has("expected.attention_weights");
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setKeyCol("key").setValueCol("value")
            .setCausal(causal).setBlockSize(32);
        if (hasWeights) {
            sdpa.setWeightsCol("attn_weights");
        }
        List<Row> out = sdpa.transform(spark.createDataFrame(rows, schema)).orderBy("id").collectAsList();

        double[] expected = st.doubles("expected.output");
        double[] expectedWeights = hasWeights ? st.doubles("expected.attention_weights") : null;
        for (int r = 0; r < bh; r++) {
            Row row = out.get(r);
            assertClose(name + " row " + r + " output", Arrays.copyOfRange(expected, r * L * dv, (r + 1) * L * dv),
                Matrices.flatten(row.getList(row.fieldIndex("attn_output"))));
            if (hasWeights) {
                assertClose(name + " row " + r + " weights",
                    Arrays.copyOfRange(expectedWeights, r * L * S, (r + 1) * L * S),
                    Matrices.flatten(row.getList(row.fieldIndex("attn_weights"))));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"float", "double", "vector"})
    @DisplayName("ragged multi-head rows with every mask kind match the float64 reference")
    void randomRowsMatchReference(String storage) {
        RandomTensors rnd = new RandomTensors(storage.hashCode());
        int heads = 4, kvHeads = 2, d = 8, dv = 6;
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT)
            .withWindow(40, AttentionSpec.UNBOUNDED).withScale(0.3f);
        DataType matrix = storage.equals("float") ? FLOAT_MATRIX : storage.equals("double")
            ? DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType))
            : DataTypes.createArrayType(SQLDataTypes.VectorType());
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", matrix).add("k", matrix)
            .add("v", matrix).add("len", DataTypes.IntegerType)
            .add("mask", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.BooleanType)))
            .add("bias", DataTypes.createArrayType(FLOAT_MATRIX));
        List<Row> rows = new ArrayList<>();
        List<NaiveAttention.Result> refs = new ArrayList<>();
        List<AttentionShape> shapes = new ArrayList<>();
        for (int r = 0; r < 12; r++) {
            int L = rnd.pick(0, 1, 5, 33, 70), S = rnd.pick(1, 9, 64, 100);  // S = 0: see noKeys
            AttentionShape shape = new AttentionShape(L, S, heads, kvHeads, d, dv);
            float[] q = rnd.normal(shape.querySize(), r % 3 == 0 ? 8 : 1);
            float[] k = rnd.normal(shape.keySize(), 1);
            float[] v = rnd.normal(shape.valueSize(), 1);
            int len = rnd.between(0, S);
            boolean[] allowed = rnd.bernoulli(L * S, 0.8);
            float[] bias = rnd.normal(heads * L * S, 1);
            RowMask mask = RowMask.keyLength(len).withAllowed(allowed).withBias(bias);
            refs.add(NaiveAttention.forward(spec, shape, q, k, v, mask));
            shapes.add(shape);
            rows.add(RowFactory.create(r, store(storage, q, L, heads * d), store(storage, k, S, kvHeads * d),
                store(storage, v, S, kvHeads * dv), len, booleans(allowed, L, S), planes(bias, heads, L, S)));
        }
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention()
            .setQueryCol("q").setKeyCol("k").setValueCol("v").setKeyLengthCol("len").setAttnMaskCol("mask")
            .setAttnBiasCol("bias").setNumHeads(heads).setNumKvHeads(kvHeads)
            .setCausal(true).setCausalAlignment("bottom_right").setWindowLeft(40).setScale(0.3).setBlockSize(16)
            .setWeightsCol("w").setAverageWeights(false);
        List<Row> out = sdpa.transform(spark.createDataFrame(rows, schema).repartition(3)).orderBy("id")
            .collectAsList();
        for (int r = 0; r < rows.size(); r++) {
            Row row = out.get(r);
            assertClose("row " + r + " output", refs.get(r).out, Matrices.flatten(row.getList(row.fieldIndex("attn_output"))));
            assertClose("row " + r + " weights", refs.get(r).weights, Matrices.flatten3(row.getList(row.fieldIndex("w"))));
            assertEquals(shapes.get(r).queryLength(), row.getList(row.fieldIndex("attn_output")).size());
        }
    }

    @Test
    @DisplayName("transformSchema gives transform's schema; a null query gives a null output")
    void schemaAndNulls() {
        StructType schema = new StructType().add("query", FLOAT_MATRIX).add("tag", DataTypes.StringType);
        List<Row> rows = List.of(RowFactory.create(new float[][] {{1, 2}, {3, 4}}, "a"), RowFactory.create(null, "b"));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setWeightsCol("w");
        Dataset<Row> out = sdpa.transform(spark.createDataFrame(rows, schema));
        assertEquals(sdpa.transformSchema(schema), out.schema());
        List<Row> got = out.orderBy("tag").collectAsList();
        assertEquals(2, got.get(0).getList(2).size());
        assertNull(got.get(1).get(2));
        assertNull(got.get(1).get(3));
    }

    @Test
    @DisplayName("output and weights come from one evaluation per row: the plan computes attention once")
    void attentionIsComputedOncePerRow() {
        StructType schema = new StructType().add("query", FLOAT_MATRIX);
        Dataset<Row> out = new ScaledDotProductAttention().setWeightsCol("w")
            .transform(spark.createDataFrame(List.of(RowFactory.create((Object) new float[][] {{1, 2}})), schema)
                .repartition(1));  // a local relation would be folded on the driver, hiding the projection
        String plan = out.queryExecution().executedPlan().toString();
        assertEquals(1, plan.split("attention\\(", -1).length - 1, plan);
    }

    @Test
    @DisplayName("a row with no keys attends to nothing: zeros, with the query's width (the value's is unknown)")
    void noKeys() {
        StructType schema = new StructType().add("query", FLOAT_MATRIX).add("key", FLOAT_MATRIX);
        List<Row> rows = List.of(RowFactory.create(new float[][] {{1, 2, 3, 4}, {5, 6, 7, 8}}, new float[0][]));
        Row out = new ScaledDotProductAttention().setKeyCol("key").setNumHeads(2).setWeightsCol("w")
            .transform(spark.createDataFrame(rows, schema)).first();
        assertTrue(Arrays.equals(new float[8], Matrices.flatten(out.getList(2))));
        assertEquals(2, out.getList(3).size());
        assertEquals(0, Matrices.flatten(out.getList(3)).length);
    }

    @Test
    @DisplayName("schema errors name the column, the expected and the found type")
    void schemaErrors() {
        StructType schema = new StructType().add("query", DataTypes.StringType).add("x", FLOAT_MATRIX);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().transformSchema(schema));
        assertEquals("column query (queryCol): expected array<array<float>>, array<array<double>> or array<vector>, "
            + "or a flat array<float|double> of L·W values, found string", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().setQueryCol("missing").transformSchema(schema));
        assertTrue(e.getMessage().startsWith("column missing (queryCol) does not exist"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().setQueryCol("x").setOutputCol("query").transformSchema(schema));
        assertEquals("output column query already exists in the input", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().setQueryCol("x").setNumHeads(4).setNumKvHeads(3).transformSchema(schema));
        assertEquals("numKvHeads (3) must divide numHeads (4)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new ScaledDotProductAttention().setQueryCol("x").setKeyLengthCol("query").transformSchema(schema));
        assertEquals("column query (keyLengthCol): expected an integer type, found string", e.getMessage());
    }

    @Test
    @DisplayName("data errors name the row and the column")
    void dataErrors() {
        StructType schema = new StructType().add("id", DataTypes.StringType).add("query", FLOAT_MATRIX)
            .add("len", DataTypes.IntegerType);
        List<Row> rows = List.of(
            RowFactory.create("r0", new float[][] {{1, 2}, {3, 4}}, 1),
            RowFactory.create("r1", new float[][] {{1, 2}, {3}}, 1),
            RowFactory.create("r2", new float[][] {{1, Float.NaN}}, 1),
            RowFactory.create("r3", new float[][] {{1, 2}}, 3));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setRowIdCol("id").setKeyLengthCol("len");
        for (int bad = 1; bad <= 3; bad++) {
            Dataset<Row> df = spark.createDataFrame(List.of(rows.get(0), rows.get(bad)), schema).coalesce(1);
            Exception e = assertThrows(Exception.class, () -> sdpa.transform(df).collect());
            String message = rootMessage(e);
            String expected = bad == 1 ? "row r1: column query row 1 has 1 values, expected 2 (as row 0)"
                : bad == 2 ? "row r2: column query has NaN at row 0, position 1 (handleInvalid=keep lets it propagate)"
                : "row r3: column len is 3, outside [0, 1] (the row has 1 keys)";
            assertEquals(expected, message);
        }
        // keep: NaN propagates to that row's output
        Row kept = sdpa.setHandleInvalid("keep").transform(spark.createDataFrame(List.of(rows.get(2)), schema)).first();
        assertTrue(Float.isNaN(Matrices.flatten(kept.getList(3))[0]));
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static Object store(String storage, float[] values, int rows, int cols) {
        switch (storage) {
            case "float":
                return Matrices.floats(values, rows, cols);
            case "double":
                return Matrices.doubles(values, rows, cols);
            default:
                return Matrices.vectors(values, rows, cols);
        }
    }

    private static boolean[][] booleans(boolean[] values, int rows, int cols) {
        boolean[][] m = new boolean[rows][cols];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(values, i * cols, m[i], 0, cols);
        }
        return m;
    }

    private static float[][][] planes(float[] values, int planes, int rows, int cols) {
        float[][][] m = new float[planes][][];
        for (int p = 0; p < planes; p++) {
            m[p] = Matrices.floats(Arrays.copyOfRange(values, p * rows * cols, (p + 1) * rows * cols), rows, cols);
        }
        return m;
    }
}
