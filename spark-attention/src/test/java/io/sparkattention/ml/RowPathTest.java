package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.NaiveAttention;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Rows of one shape through one task: the task reuses its decode and output buffers from row to
 * row, and every row still gets its own output. Cached input reaches the stages in Spark's binary
 * format, as in production.
 */
class RowPathTest {

    private static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private static final DataType DOUBLE_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType));
    private final SparkSession spark = SparkTestSession.get();

    @ParameterizedTest
    @ValueSource(strings = {"batch", "head"})
    @DisplayName("same-shaped rows with masks and biases in one partition each match their own float64 reference")
    void sameShapedRowsKeepTheirOwnOutputs(String strategy) {
        RandomTensors rnd = new RandomTensors(23);
        int heads = 2, d = 4, dv = 3;
        AttentionSpec spec = AttentionSpec.defaults();
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", FLOAT_MATRIX)
            .add("k", DOUBLE_MATRIX).add("v", FLOAT_MATRIX)
            .add("mask", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.BooleanType)))
            .add("bias", DataTypes.createArrayType(FLOAT_MATRIX));
        List<Row> rows = new ArrayList<>();
        List<NaiveAttention.Result> refs = new ArrayList<>();
        for (int r = 0; r < 7; r++) {
            int L = r == 3 ? 2 : 7, S = r == 3 ? 5 : 9;  // one row of another shape in the middle
            AttentionShape shape = new AttentionShape(L, S, heads, heads, d, dv);
            float[] q = rnd.normal(shape.querySize(), 1 + r);
            float[] k = rnd.normal(shape.keySize(), 1);
            float[] v = rnd.normal(shape.valueSize(), 1);
            boolean[] allowed = rnd.bernoulli(L * S, 0.8);
            float[] bias = rnd.normal(heads * L * S, 1);
            refs.add(NaiveAttention.forward(spec, shape, q, k, v, RowMask.NONE.withAllowed(allowed).withBias(bias)));
            rows.add(RowFactory.create(r, Matrices.floats(q, L, heads * d), Matrices.doubles(k, S, heads * d),
                Matrices.floats(v, S, heads * dv), booleans(allowed, L, S), planes(bias, heads, L, S)));
        }
        Dataset<Row> input = spark.createDataFrame(rows, schema).repartition(1).cache();
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k").setValueCol("v")
            .setAttnMaskCol("mask").setAttnBiasCol("bias").setNumHeads(heads).setWeightsCol("w")
            .setAverageWeights(false).setStrategy(strategy);
        List<Row> out = sdpa.transform(input).orderBy("id").collectAsList();
        input.unpersist();
        for (int r = 0; r < rows.size(); r++) {
            Row row = out.get(r);
            assertClose("row " + r + " output", refs.get(r).out, Matrices.flatten(row.getList(row.fieldIndex("attn_output"))));
            assertClose("row " + r + " weights", refs.get(r).weights, Matrices.flatten3(row.getList(row.fieldIndex("w"))));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5})
    @DisplayName("the positional encoding over same-shaped rows in one partition gives each row its own sum")
    void positionalEncodingKeepsEachRow(int width) {
        RandomTensors rnd = new RandomTensors(7 + width);
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("emb", FLOAT_MATRIX);
        List<Row> rows = new ArrayList<>();
        List<float[]> inputs = new ArrayList<>();
        for (int r = 0; r < 5; r++) {
            float[] x = rnd.normal(3 * width, 1);
            inputs.add(x);
            rows.add(RowFactory.create(r, Matrices.floats(x, 3, width)));
        }
        Dataset<Row> input = spark.createDataFrame(rows, schema).repartition(1).cache();
        Dataset<Row> alone = new SinusoidalPositionalEncoding().setInputCol("emb").setOutputCol("pe")
            .setAddToInput(false).transform(input);
        Dataset<Row> added = new SinusoidalPositionalEncoding().setInputCol("emb").setOutputCol("pos").transform(alone);
        List<Row> got = added.orderBy("id").collectAsList();
        input.unpersist();
        for (int r = 0; r < rows.size(); r++) {
            Row row = got.get(r);
            float[] pe = Matrices.flatten(row.getList(row.fieldIndex("pe")));
            double[] expected = new double[3 * width];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = inputs.get(r)[i] + pe[i];
            }
            assertEquals(3, row.getList(row.fieldIndex("pos")).size());
            assertClose("row " + r, expected, Matrices.flatten(row.getList(row.fieldIndex("pos"))));
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
