package io.sparkattention.ml.feature;

import io.sparkattention.ml.MultiHeadAttentionTest;
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

import java.util.ArrayList;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The positional encoding stages on DataFrames, against their formulas evaluated directly in float64. */
class PositionalEncodingStagesTest {

    private final SparkSession spark = SparkTestSession.get();

    private static DataType matrixType(String storage) {
        return storage.equals("float") ? DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType))
            : storage.equals("double") ? DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType))
            : DataTypes.createArrayType(SQLDataTypes.VectorType());
    }

    private static Object store(String storage, float[] values, int rows, int cols) {
        return storage.equals("float") ? Matrices.floats(values, rows, cols) : storage.equals("double")
            ? Matrices.doubles(values, rows, cols) : Matrices.vectors(values, rows, cols);
    }

    /** PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)). */
    private static double sinusoid(double base, long pos, int c, int d) {
        double angle = pos / Math.pow(base, 2.0 * (c / 2) / d);
        return c % 2 == 0 ? Math.sin(angle) : Math.cos(angle);
    }

    /** Half-split RoPE of one value: column c of a head_dim-wide head at position pos. */
    private static double rotary(float[] x, int row, int width, int c, int headDim, long pos, double base) {
        int half = headDim / 2, head = c / headDim, j = c % headDim, at = row * width + head * headDim;
        double theta = Math.pow(base, -2.0 * (j % half) / headDim), angle = pos * theta;
        return j < half ? x[at + j] * Math.cos(angle) - x[at + j + half] * Math.sin(angle)
            : x[at + j] * Math.cos(angle) + x[at + j - half] * Math.sin(angle);
    }

    @ParameterizedTest
    @ValueSource(strings = {"float", "double", "vector"})
    @DisplayName("sinusoidal: input + PE on ragged rows of every storage; null stays null")
    void sinusoidalAddsTheEncoding(String storage) {
        RandomTensors rnd = new RandomTensors(storage.hashCode());
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("emb", matrixType(storage));
        List<Row> rows = new ArrayList<>();
        List<float[]> inputs = new ArrayList<>();
        int[][] shapes = {{5, 8}, {1, 3}, {40, 16}, {0, 0}};
        for (int r = 0; r < shapes.length; r++) {
            float[] x = rnd.normal(shapes[r][0] * shapes[r][1], 1);
            inputs.add(x);
            rows.add(RowFactory.create(r, store(storage, x, shapes[r][0], shapes[r][1])));
        }
        rows.add(RowFactory.create(shapes.length, null));
        SinusoidalPositionalEncoding pe = new SinusoidalPositionalEncoding().setInputCol("emb").setOutputCol("pos")
            .setPositionOffset(3).setBase(500);
        Dataset<Row> df = spark.createDataFrame(rows, schema);
        Dataset<Row> out = pe.transform(df);
        assertEquals(pe.transformSchema(schema), out.schema());
        List<Row> got = out.orderBy("id").collectAsList();
        for (int r = 0; r < shapes.length; r++) {
            int L = shapes[r][0], d = shapes[r][1];
            double[] expected = new double[L * d];
            for (int i = 0; i < L; i++) {
                for (int c = 0; c < d; c++) {
                    expected[i * d + c] = inputs.get(r)[i * d + c] + sinusoid(500, 3 + i, c, d);
                }
            }
            assertClose("row " + r, expected, Matrices.flatten(got.get(r).getList(2)));
            assertEquals(L, got.get(r).getList(2).size());
        }
        assertNull(got.get(shapes.length).get(2));
    }

    @Test
    @DisplayName("sinusoidal with addToInput=false outputs the encoding alone, shaped like the input")
    void sinusoidalEncodingAlone() {
        StructType schema = new StructType().add("embeddings", matrixType("float"));
        Row row = new SinusoidalPositionalEncoding().setAddToInput(false)
            .transform(spark.createDataFrame(List.of(RowFactory.create((Object) new float[3][6])), schema)).first();
        double[] expected = new double[18];
        for (int i = 0; i < 3; i++) {
            for (int c = 0; c < 6; c++) {
                expected[i * 6 + c] = sinusoid(10000, i, c, 6);
            }
        }
        assertClose("PE", expected, Matrices.flatten(row.getList(1)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"float", "vector"})
    @DisplayName("rotary: query with 4 heads and key with 2 (grouped query), rotated per head from positionOffset")
    void rotaryRotatesQueryAndKey(String storage) {
        RandomTensors rnd = new RandomTensors(7);
        int hd = 8, heads = 4, kvHeads = 2;
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("q", matrixType(storage))
            .add("k", matrixType(storage));
        List<Row> rows = new ArrayList<>();
        List<float[][]> inputs = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            int L = rnd.pick(1, 6, 30), S = rnd.pick(2, 9);
            float[] q = rnd.normal(L * heads * hd, 1), k = rnd.normal(S * kvHeads * hd, 1);
            inputs.add(new float[][] {q, k});
            rows.add(RowFactory.create(r, store(storage, q, L, heads * hd), store(storage, k, S, kvHeads * hd)));
        }
        RotaryPositionalEncoding rope = new RotaryPositionalEncoding().setQueryCol("q").setKeyCol("k")
            .setQueryOutputCol("q_rope").setKeyOutputCol("k_rope").setNumHeads(heads).setNumKvHeads(kvHeads)
            .setPositionOffset(100);
        Dataset<Row> out = rope.transform(spark.createDataFrame(rows, schema).repartition(2));
        assertEquals(rope.transformSchema(schema), out.schema());
        List<Row> got = out.orderBy("id").collectAsList();
        for (int r = 0; r < rows.size(); r++) {
            for (int which = 0; which < 2; which++) {
                float[] x = inputs.get(r)[which];
                int width = (which == 0 ? heads : kvHeads) * hd, L = x.length / width;
                double[] expected = new double[x.length];
                for (int i = 0; i < L; i++) {
                    for (int c = 0; c < width; c++) {
                        expected[i * width + c] = rotary(x, i, width, c, hd, 100 + i, 10000);
                    }
                }
                assertClose("row " + r + (which == 0 ? " query" : " key"), expected,
                    Matrices.flatten(got.get(r).getList(3 + which)));
            }
        }
    }

    @Test
    @DisplayName("rotary without a key column rotates the query only")
    void rotaryQueryOnly() {
        StructType schema = new StructType().add("query", matrixType("float"));
        RotaryPositionalEncoding rope = new RotaryPositionalEncoding().setQueryOutputCol("rotated");
        Dataset<Row> out = rope.transform(spark.createDataFrame(
            List.of(RowFactory.create((Object) new float[][] {{1, 0}, {1, 0}})), schema));
        assertEquals(List.of("query", "rotated"), List.of(out.columns()));
        float[] got = Matrices.flatten(out.first().getList(1));
        assertClose("rotated", new double[] {1, 0, Math.cos(1), Math.sin(1)}, got);
    }

    @Test
    @DisplayName("errors: odd head_dim names the column and row; schema errors name column and types")
    void errors() {
        StructType schema = new StructType().add("query", matrixType("double")).add("s", DataTypes.StringType);
        Dataset<Row> df = spark.createDataFrame(List.of(RowFactory.create(new double[][] {new double[12]}, "a")),
            schema);
        Exception e = assertThrows(Exception.class,
            () -> new RotaryPositionalEncoding().setNumHeads(4).setQueryOutputCol("r").transform(df).collect());
        assertEquals("row 0: column query: head_dim 3 (12/4) is odd; rotary encoding rotates pairs of values and "
            + "needs an even head_dim", MultiHeadAttentionTest.rootMessage(e));
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
            () -> new RotaryPositionalEncoding().setQueryCol("s").transformSchema(schema));
        assertEquals("column s (queryCol): expected array<array<float>>, array<array<double>> or array<vector>, "
            + "or a flat array<float|double> of L·W values, found string", s.getMessage());
        s = assertThrows(IllegalArgumentException.class,
            () -> new RotaryPositionalEncoding().setQueryOutputCol("s").transformSchema(schema));
        assertEquals("output column s already exists in the input", s.getMessage());
        s = assertThrows(IllegalArgumentException.class,
            () -> new RotaryPositionalEncoding().setKeyCol("query").setQueryOutputCol("o").setKeyOutputCol("o")
                .transformSchema(schema));
        assertEquals("queryOutputCol and keyOutputCol are both o", s.getMessage());
        s = assertThrows(IllegalArgumentException.class,
            () -> new SinusoidalPositionalEncoding().transformSchema(schema));
        assertEquals("column embeddings (inputCol) does not exist; the input has query, s", s.getMessage());
        double[][] nan = {{1, Double.NaN}};
        Dataset<Row> withNaN = spark.createDataFrame(List.of(RowFactory.create(nan, "b")), schema);
        e = assertThrows(Exception.class,
            () -> new SinusoidalPositionalEncoding().setInputCol("query").transform(withNaN).collect());
        assertEquals("row 0: column query has NaN at row 0, position 1 (handleInvalid=keep lets it propagate)",
            MultiHeadAttentionTest.rootMessage(e));
        Row kept = new SinusoidalPositionalEncoding().setInputCol("query").setOutputCol("o").setHandleInvalid("keep")
            .transform(withNaN).first();
        assertEquals(Float.NaN, Matrices.flatten(kept.getList(2))[1]);
    }

    @Test
    @DisplayName("rowIdCol: both encodings name a bad row by its id column's value, and refuse an id column "
        + "the input lacks")
    void rowIdNamesTheRow() {
        StructType schema = new StructType().add("query", matrixType("double")).add("s", DataTypes.StringType);
        Dataset<Row> withNaN = spark.createDataFrame(
            List.of(RowFactory.create(new double[][] {{1, 2, 3, Double.NaN}}, "passage-7")), schema);
        Exception e = assertThrows(Exception.class, () -> new SinusoidalPositionalEncoding().setInputCol("query")
            .setRowIdCol("s").transform(withNaN).collect());
        assertEquals("row passage-7: column query has NaN at row 0, position 3 (handleInvalid=keep lets it propagate)",
            MultiHeadAttentionTest.rootMessage(e));
        e = assertThrows(Exception.class, () -> new RotaryPositionalEncoding().setRowIdCol("s").transform(withNaN)
            .collect());
        assertEquals("row passage-7: column query has NaN at row 0, position 3 (handleInvalid=keep lets it propagate)",
            MultiHeadAttentionTest.rootMessage(e));
        IllegalArgumentException s = assertThrows(IllegalArgumentException.class,
            () -> new RotaryPositionalEncoding().setRowIdCol("id").transformSchema(schema));
        assertEquals("column id (rowIdCol) does not exist; the input has query, s", s.getMessage());
        s = assertThrows(IllegalArgumentException.class,
            () -> new SinusoidalPositionalEncoding().setInputCol("query").setRowIdCol("id").transformSchema(schema));
        assertEquals("column id (rowIdCol) does not exist; the input has query, s", s.getMessage());
    }
}
