package io.sparkattention.ml;

import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.unsafe.Platform;

/** Row-major float matrices as Catalyst {@code array<array<float>>} values, one copy per row. */
final class CatalystMatrices {

    private CatalystMatrices() {
    }

    /** {@code rows×cols} values starting at {@code offset} as an array of float arrays. */
    static ArrayData matrix(float[] values, int offset, int rows, int cols) {
        Object[] out = new Object[rows];
        for (int i = 0; i < rows; i++) {
            long byteOffset = Platform.FLOAT_ARRAY_OFFSET + 4L * (offset + (long) i * cols);
            out[i] = UnsafeArrayData.fromPrimitiveArray(values, (int) byteOffset, cols, 4);
        }
        return new GenericArrayData(out);
    }

    /** {@code planes×rows×cols} values as an array of matrices. */
    static ArrayData planes(float[] values, int planes, int rows, int cols) {
        Object[] out = new Object[planes];
        for (int p = 0; p < planes; p++) {
            out[p] = matrix(values, p * rows * cols, rows, cols);
        }
        return new GenericArrayData(out);
    }
}
