package io.sparkattention.examples.bench;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates a benchmark input on the executors: from a row's id, a seeded rows×cols matrix of
 * uniform values in [−1, 1) (the kernel benchmark's distribution), as array&lt;array&lt;float&gt;&gt;.
 * Deterministic, so a recomputed partition holds the same matrices; nothing is built on the
 * driver.
 */
final class RandomMatrix implements RowFunction {

    private static final long serialVersionUID = 1L;

    static final DataType TYPE = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));

    private final long seed;
    private final int rows;
    private final int cols;

    private RandomMatrix(long seed, int rows, int cols) {
        this.seed = seed;
        this.rows = rows;
        this.cols = cols;
    }

    /** A column of rows×cols matrices from the long column {@code id} and {@code seed}. */
    static Column column(Column id, long seed, int rows, int cols) {
        return RowFunctions.column("random_matrix", new RandomMatrix(seed, rows, cols), TYPE, null, List.of(id));
    }

    /**
     * The generator of row {@code id}'s matrix: its values are the generator's next rows×cols
     * {@link UniformInputs#uniform} values, row-major, so the driver can rebuild a row's matrix.
     */
    static SplittableRandom random(long seed, long id) {
        return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id);
    }

    @Override
    public Object apply(Object[] inputs) {
        SplittableRandom random = random(seed, (Long) inputs[0]);
        Object[] out = new Object[rows];
        float[] row = new float[cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                row[j] = (float) (random.nextDouble() * 2 - 1);
            }
            out[i] = UnsafeArrayData.fromPrimitiveArray(row);
        }
        return new GenericArrayData(out);
    }
}
