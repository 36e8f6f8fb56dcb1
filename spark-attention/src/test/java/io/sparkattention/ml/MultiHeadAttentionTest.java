package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.Attention;
import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.testing.Fixtures;
import io.sparkattention.testing.Matrices;
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

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MultiHeadAttention fit and MultiHeadAttentionModel transform: widths, initialisation, edge rows, errors. */
public class MultiHeadAttentionTest {

    private static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private final SparkSession spark = SparkTestSession.get();

    private static DataType matrixType(String storage) {
        return storage.equals("float") ? FLOAT_MATRIX : storage.equals("double")
            ? DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType))
            : DataTypes.createArrayType(SQLDataTypes.VectorType());
    }

    private static Object store(String storage, float[] values, int rows, int cols) {
        return storage.equals("float") ? Matrices.floats(values, rows, cols) : storage.equals("double")
            ? Matrices.doubles(values, rows, cols) : Matrices.vectors(values, rows, cols);
    }

    @ParameterizedTest
    @ValueSource(strings = {"float", "double", "vector"})
    @DisplayName("fit takes E, kdim and vdim from the data; transform equals the layer's forward on every ragged row")
    void fitAndTransformRaggedCrossAttention(String storage) {
        int e = 16, heads = 4, kdim = 6, vdim = 10;
        RandomTensors rnd = new RandomTensors(storage.hashCode());
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", matrixType(storage))
            .add("k", matrixType(storage)).add("v", matrixType(storage)).add("len", DataTypes.IntegerType);
        List<Row> rows = new ArrayList<>();
        List<float[][]> inputs = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        for (int r = 0; r < 8; r++) {
            int L = rnd.pick(1, 3, 17, 40), S = rnd.pick(1, 5, 33);
            float[] q = rnd.normal(L * e, 1), k = rnd.normal(S * kdim, 1), v = rnd.normal(S * vdim, 1);
            int len = rnd.between(1, S);
            inputs.add(new float[][] {q, k, v});
            lengths.add(len);
            rows.add(RowFactory.create(r, store(storage, q, L, e), store(storage, k, S, kdim),
                store(storage, v, S, vdim), len));
        }
        Dataset<Row> df = spark.createDataFrame(rows, schema).repartition(3);
        MultiHeadAttention mha = new MultiHeadAttention().setQueryCol("q").setKeyCol("k").setValueCol("v")
            .setKeyLengthCol("len").setNumHeads(heads).setCausal(true).setSeed(99).setWeightsCol("w")
            .setAverageWeights(false);
        MultiHeadAttentionModel model = mha.fit(df);

        MultiHeadAttentionWeights expected = MultiHeadAttentionInit.pytorchDefault(e, heads, kdim, vdim, true, 99);
        assertArrayEquals(expected.qWeight(), model.weights().qWeight());
        assertArrayEquals(expected.vWeight(), model.weights().vWeight());
        assertArrayEquals(expected.outWeight(), model.weights().outWeight());
        assertSame(mha, model.parent());
        assertEquals(mha.uid(), model.uid());
        assertEquals("w", model.getWeightsCol(), "the estimator's params carry over");

        Dataset<Row> out = model.transform(df);
        assertEquals(model.transformSchema(df.schema()), out.schema());
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(expected,
            new FlashAttention(AttentionSpec.defaults().withCausal(true)));
        List<Row> got = out.orderBy("id").collectAsList();
        for (int r = 0; r < rows.size(); r++) {
            float[][] in = inputs.get(r);
            int L = in[0].length / e, S = in[1].length / kdim;
            Attention.Output ref = layer.forward(in[0], L, in[1], in[2], S, RowMask.keyLength(lengths.get(r)),
                AttentionWeightsMode.PER_HEAD, new Workspace());
            Row row = got.get(r);
            assertClose("row " + r + " output", toDouble(ref.values()),
                Matrices.flatten(row.getList(row.fieldIndex("attn_output"))));
            assertClose("row " + r + " weights", toDouble(ref.weights()),
                Matrices.flatten3(row.getList(row.fieldIndex("w"))));
        }
    }

    @Test
    @DisplayName("the default seed is fixed; bias=false initialises without biases")
    void seedAndBias() {
        Dataset<Row> df = selfAttentionRows(List.of(RowFactory.create(0, new float[][] {{1, 2, 3, 4}})));
        MultiHeadAttentionModel a = new MultiHeadAttention().setNumHeads(2).fit(df);
        MultiHeadAttentionModel b = new MultiHeadAttention().setNumHeads(2).fit(df);
        assertArrayEquals(a.weights().qWeight(), b.weights().qWeight());
        assertTrue(a.weights().hasBias());
        assertFalse(new MultiHeadAttention().setBias(false).fit(df).weights().hasBias());
        assertFalse(java.util.Arrays.equals(a.weights().qWeight(),
            new MultiHeadAttention().setSeed(1).fit(df).weights().qWeight()));
    }

    @Test
    @DisplayName("key_length 0 attends to nothing: output = the output projection's bias, weights 0")
    void noValidKeysGiveTheOutputBias() {
        MultiHeadAttentionModel model = fixtureModel("mha_self_basic", 4);
        StructType schema = new StructType().add("query", FLOAT_MATRIX).add("len", DataTypes.IntegerType);
        float[][] q = Matrices.floats(new RandomTensors(1).normal(3 * 16, 1), 3, 16);
        Row out = model.setKeyLengthCol("len").setWeightsCol("w")
            .transform(spark.createDataFrame(List.of(RowFactory.create(q, 0)), schema)).first();
        float[] bias = model.weights().outBias();
        float[] expected = new float[3 * 16];
        for (int i = 0; i < 3; i++) {
            System.arraycopy(bias, 0, expected, i * 16, 16);
        }
        assertArrayEquals(expected, Matrices.flatten(out.getList(2)));
        assertArrayEquals(new float[3 * 3], Matrices.flatten(out.getList(3)));
    }

    @Test
    @DisplayName("an empty query gives an empty output, a null query a null one, an empty input an empty output")
    void emptyAndNullRows() {
        MultiHeadAttentionModel model = fixtureModel("mha_self_basic", 4).setWeightsCol("w");
        Dataset<Row> df = selfAttentionRows(List.of(RowFactory.create(0, new float[0][]), RowFactory.create(1, null)));
        List<Row> out = model.transform(df).orderBy("id").collectAsList();
        assertEquals(0, out.get(0).getList(2).size());
        assertEquals(0, out.get(0).getList(3).size());
        assertNull(out.get(1).get(2));
        assertEquals(0, model.transform(df.limit(0)).count());
    }

    @Test
    @DisplayName("weights are broadcast: the plan that ships to executors does not carry them")
    void weightsAreBroadcastNotShippedWithThePlan() {
        int e = 256;  // 263k parameters: about 1 MB of floats
        MultiHeadAttentionModel model = new MultiHeadAttentionModel(
            MultiHeadAttentionInit.pytorchDefault(e, 4, e, e, true, 1));
        float[][] q = Matrices.floats(new RandomTensors(2).normal(2 * e, 1), 2, e);
        Dataset<Row> out = model.transform(selfAttentionRows(List.of(RowFactory.create(0, q))).repartition(1));
        int planBytes = serializedSize(out.queryExecution().executedPlan());
        assertTrue(planBytes < 100_000, "the executed plan serialises to " + planBytes + " bytes");
        assertEquals(2, out.first().getList(2).size());
        String plan = out.queryExecution().executedPlan().toString();
        assertEquals(1, plan.split("attention\\(", -1).length - 1, plan);
    }

    @Test
    @DisplayName("fit errors: heads that do not divide E, weights that do not fit the data, no rows, grouped query")
    void fitErrors() {
        Dataset<Row> df = selfAttentionRows(List.of(RowFactory.create(0, new float[][] {new float[12]})));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new MultiHeadAttention().setNumHeads(5).fit(df));
        assertEquals("numHeads (5) must divide embed_dim (12), the width of column query", e.getMessage());

        String path = Fixtures.path("mha_self_basic").toString();
        e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttention().setNumHeads(4)
            .setInitialWeightsPath(path).setWeightsPrefix("state_dict.").fit(df));
        assertEquals(path + ": embed_dim is 16 (out_proj.weight [16, 16]) but column query has 12 values per row",
            e.getMessage());

        String cross = Fixtures.path("mha_cross_kdim_vdim").toString();
        StructType schema = new StructType().add("query", FLOAT_MATRIX).add("key", FLOAT_MATRIX);
        Dataset<Row> crossRows = spark.createDataFrame(List.of(RowFactory.create(new float[][] {new float[16]},
            new float[][] {new float[10]})), schema);
        e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttention().setNumHeads(2)
            .setKeyCol("key").setInitialWeightsPath(cross).setWeightsPrefix("state_dict.").fit(crossRows));
        assertEquals(cross + ": kdim is 12 (k_proj_weight [16, 12]) but column key has 10 values per row",
            e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttention().fit(df.limit(0)));
        assertTrue(e.getMessage().startsWith("cannot resolve embed_dim: column query has no non-null, non-empty row"),
            e.getMessage());
        // With weights to load, empty data is fine: the widths come from the file.
        assertEquals(16, new MultiHeadAttention().setNumHeads(4).setInitialWeightsPath(path)
            .setWeightsPrefix("state_dict.").fit(df.limit(0)).weights().embedDim());

        e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttention().setNumHeads(4).setNumKvHeads(2));
        assertTrue(e.getMessage().startsWith("numKvHeads (2): MultiHeadAttention has no grouped-query form"),
            e.getMessage());
        MultiHeadAttention grouped = new MultiHeadAttention().setNumHeads(4);
        grouped.set(grouped.numKvHeads(), 2);
        e = assertThrows(IllegalArgumentException.class, () -> grouped.fit(df));
        assertEquals("numKvHeads (2) must be 0 or numHeads (4): nn.MultiheadAttention has no grouped-query form",
            e.getMessage());
        UncheckedIOException missing = assertThrows(UncheckedIOException.class,
            () -> MultiHeadAttentionModel.fromSafeTensors("/no/such/weights.safetensors", 4, ""));
        assertTrue(missing.getMessage().contains("/no/such/weights.safetensors"), missing.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> MultiHeadAttentionModel.fromSafeTensors(path, 3, "state_dict."));
        assertTrue(e.getMessage().startsWith("numHeads (3) must divide embed_dim E (16)"), e.getMessage());
    }

    @Test
    @DisplayName("schema errors name the column; a model's heads are its weights'")
    void schemaErrors() {
        MultiHeadAttentionModel model = fixtureModel("mha_self_basic", 4);
        StructType schema = new StructType().add("query", DataTypes.StringType).add("x", FLOAT_MATRIX);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> model.transformSchema(schema));
        assertEquals("column query (queryCol): expected array<array<float>>, array<array<double>> or array<vector>, "
            + "or a flat array<float|double> of L·W values, found string", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> model.copy(new org.apache.spark.ml.param.ParamMap()).setQueryCol("x").setKeyCol("k")
                .transformSchema(schema));
        assertTrue(e.getMessage().startsWith("column k (keyCol) does not exist; the input has query, x"),
            e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> model.copy(new org.apache.spark.ml.param.ParamMap()).setQueryCol("x").setNumHeads(2)
                .transformSchema(schema));
        assertEquals("numHeads (2) differs from the model's weights, which have 4 heads", e.getMessage());
        assertThrows(IllegalStateException.class, () -> new MultiHeadAttentionModel().transformSchema(schema));
        assertEquals(schema.add("attn_output", MatrixType.OUTPUT, true),
            new MultiHeadAttention().setQueryCol("x").transformSchema(schema));
    }

    @Test
    @DisplayName("data errors name the row and the column: wrong widths, ragged rows, NaN, key lengths out of range")
    void dataErrors() {
        MultiHeadAttentionModel model = fixtureModel("mha_self_basic", 4).setRowIdCol("id").setKeyLengthCol("len");
        StructType schema = new StructType().add("id", DataTypes.StringType).add("query", FLOAT_MATRIX)
            .add("len", DataTypes.IntegerType);
        float[] good = new float[16];
        float[] nan = new float[16];
        nan[5] = Float.NaN;
        List<Row> bad = List.of(
            RowFactory.create("r1", new float[][] {new float[12]}, 1),
            RowFactory.create("r2", new float[][] {good, new float[3]}, 1),
            RowFactory.create("r3", new float[][] {good, nan}, 1),
            RowFactory.create("r4", new float[][] {good}, 2));
        String[] expected = {
            "row r1: column query row 0 has 12 values, expected embed_dim 16",
            "row r2: column query row 1 has 3 values, expected 16 (as row 0)",
            "row r3: column query has NaN at row 1, position 5 (handleInvalid=keep lets it propagate)",
            "row r4: column len is 2, outside [0, 1] (the row has 1 keys)"};
        for (int i = 0; i < bad.size(); i++) {
            Dataset<Row> df = spark.createDataFrame(List.of(RowFactory.create("r0", new float[][] {good}, 1),
                bad.get(i)), schema).coalesce(1);
            Exception e = assertThrows(Exception.class, () -> model.transform(df).collect());
            assertEquals(expected[i], rootMessage(e));
        }
    }

    static MultiHeadAttentionModel fixtureModel(String name, int heads) {
        return MultiHeadAttentionModel.fromSafeTensors(Fixtures.path(name).toString(), heads, "state_dict.");
    }

    private Dataset<Row> selfAttentionRows(List<Row> rows) {
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("query", FLOAT_MATRIX);
        return spark.createDataFrame(rows, schema);
    }

    public static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static double[] toDouble(float[] x) {
        double[] d = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            d[i] = x[i];
        }
        return d;
    }

    private static int serializedSize(Object o) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.size();
    }
}
