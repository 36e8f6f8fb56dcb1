package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.NaiveAttention;
import io.sparkattention.testing.RandomTensors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Seeded random rows for the scaled dot-product stage — ragged L and S (L ≠ S, L = 0, S = 0),
 * grouped-query heads, key padding (including a key length of 0: every query fully masked), a
 * boolean L×S mask and a per-head H×L×S bias — with their float64 reference results.
 */
final class RandomRows {

    static final DataType FLOAT_MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    static final StructType SCHEMA = new StructType().add("id", DataTypes.IntegerType)
        .add("q", FLOAT_MATRIX).add("k", FLOAT_MATRIX).add("v", FLOAT_MATRIX).add("len", DataTypes.IntegerType)
        .add("mask", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.BooleanType)))
        .add("bias", DataTypes.createArrayType(FLOAT_MATRIX));

    final int heads;
    final int kvHeads;
    final int headDim;
    final int valueDim;
    final List<Row> rows = new ArrayList<>();
    final List<AttentionShape> shapes = new ArrayList<>();
    final List<NaiveAttention.Result> references = new ArrayList<>();

    /**
     * @param spec    the attention the references compute
     * @param count   rows
     * @param lengths the L and S values to draw from
     * @param masks   whether rows get a boolean mask and a bias
     */
    RandomRows(long seed, AttentionSpec spec, int heads, int kvHeads, int headDim, int valueDim, int count,
               int[] lengths, boolean masks) {
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.headDim = headDim;
        this.valueDim = valueDim;
        RandomTensors rnd = new RandomTensors(seed);
        for (int r = 0; r < count; r++) {
            int L = rnd.pick(lengths), S = rnd.pick(lengths);
            if (r == 0) {
                L = 0;  // no queries: an empty output
            }
            AttentionShape shape = new AttentionShape(L, S, heads, kvHeads, headDim, valueDim);
            float[] q = rnd.normal(shape.querySize(), r % 3 == 0 ? 6 : 1);
            float[] k = rnd.normal(shape.keySize(), 1);
            float[] v = rnd.normal(shape.valueSize(), 1);
            Integer len = r == 1 ? Integer.valueOf(0) : r % 2 == 0 ? null : Integer.valueOf(rnd.between(0, S));
            boolean[] allowed = masks ? rnd.bernoulli(L * S, 0.85) : null;
            float[] bias = masks ? rnd.normal(heads * L * S, 1) : null;
            RowMask mask = RowMask.keyLength(len == null ? -1 : len).withAllowed(allowed).withBias(bias);
            references.add(NaiveAttention.forward(spec, shape, q, k, v, mask));
            shapes.add(shape);
            rows.add(RowFactory.create(r, Matrices.floats(q, L, heads * headDim), Matrices.floats(k, S, kvHeads * headDim),
                Matrices.floats(v, S, kvHeads * valueDim), len,
                masks ? booleans(allowed, L, S) : null, masks ? planes(bias, heads, L, S) : null));
        }
    }

    /** The rows as a DataFrame of {@code partitions} partitions. */
    Dataset<Row> frame(SparkSession spark, int partitions) {
        return spark.createDataFrame(rows, SCHEMA).repartition(partitions);
    }

    /** A scaled dot-product stage under {@code strategy} that reads and writes the columns of {@link #SCHEMA}. */
    static ScaledDotProductAttention stage(String strategy) {
        return new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k").setValueCol("v").setKeyLengthCol("len")
            .setAttnMaskCol("mask").setAttnBiasCol("bias").setOutputCol("out").setStrategy(strategy);
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
