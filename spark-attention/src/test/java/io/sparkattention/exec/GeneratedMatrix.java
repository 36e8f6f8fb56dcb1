package io.sparkattention.exec;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic generator of row matrices for the integration tests: the row id and a seed
 * give an L×W matrix of standard normal floats, computed on the executors (so a recomputed
 * input partition holds exactly the same rows).
 */
final class GeneratedMatrix implements RowFunction {

    private static final long serialVersionUID = 1L;

    static final DataType MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));

    private final long seed;
    private final int rows;
    private final int cols;

    private GeneratedMatrix(long seed, int rows, int cols) {
        this.seed = seed;
        this.rows = rows;
        this.cols = cols;
    }

    /** A column of rows×cols matrices, seeded by {@code seed} and the long column {@code id}. */
    static Column column(Column id, long seed, int rows, int cols) {
        return RowFunctions.column("generated_matrix", new GeneratedMatrix(seed, rows, cols), MATRIX, null, List.of(id));
    }

    @Override
    public Object apply(Object[] inputs) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + (Long) inputs[0]);
        Object[] out = new Object[rows];
        for (int i = 0; i < rows; i++) {
            float[] row = new float[cols];
            for (int j = 0; j < cols; j++) {
                double u = 1.0 - random.nextDouble(), v = random.nextDouble();
                row[j] = (float) (Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
            }
            out[i] = UnsafeArrayData.fromPrimitiveArray(row);
        }
        return new GenericArrayData(out);
    }
}
