package io.sparkattention.examples.bench;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DataTypes;

import java.util.List;

/**
 * Consumes an attention output on the executors: the sum of a matrix column's values (as a
 * double), so a benchmark pays for computing the output but never ships it to the driver.
 */
final class OutputChecksum implements RowFunction {

    private static final long serialVersionUID = 1L;

    /** Values per matrix row of a flat column, or 0 for a nested one. */
    private final int flatWidth;

    private OutputChecksum(int flatWidth) {
        this.flatWidth = flatWidth;
    }

    /** The checksum of the array&lt;array&lt;float&gt;&gt; column {@code matrix}. */
    static Column of(Column matrix) {
        return RowFunctions.column("checksum", new OutputChecksum(0), DataTypes.DoubleType, null, List.of(matrix));
    }

    /**
     * The checksum of a flat array&lt;float&gt; column of matrices with {@code cols} columns: the
     * same additions in the same order as the nested column's, so equal matrices give equal checksums.
     */
    static Column ofFlat(Column flat, int cols) {
        return RowFunctions.column("checksum", new OutputChecksum(cols), DataTypes.DoubleType, null, List.of(flat));
    }

    @Override
    public Object apply(Object[] inputs) {
        ArrayData m = (ArrayData) inputs[0];
        if (m == null) {
            return null;
        }
        if (flatWidth > 0) {
            return ofFlat(m, flatWidth);
        }
        // Four independent sums: a single chain of double adds waits out the add's latency on
        // every element. Read in place: a copy per row would be 128 MiB of garbage per 64 rows.
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int i = 0; i < m.numElements(); i++) {
            ArrayData row = m.getArray(i);
            int n = row.numElements(), j = 0;
            for (; j + 4 <= n; j += 4) {
                s0 += row.getFloat(j);
                s1 += row.getFloat(j + 1);
                s2 += row.getFloat(j + 2);
                s3 += row.getFloat(j + 3);
            }
            for (; j < n; j++) {
                s0 += row.getFloat(j);
            }
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static double ofFlat(ArrayData m, int cols) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int base = 0; base < m.numElements(); base += cols) {
            int j = 0;
            for (; j + 4 <= cols; j += 4) {
                s0 += m.getFloat(base + j);
                s1 += m.getFloat(base + j + 1);
                s2 += m.getFloat(base + j + 2);
                s3 += m.getFloat(base + j + 3);
            }
            for (; j < cols; j++) {
                s0 += m.getFloat(base + j);
            }
        }
        return (s0 + s1) + (s2 + s3);
    }

    /**
     * The checksum of a row-major matrix of {@code cols} columns held in a flat array, with the
     * same additions in the same order as {@link #apply}, so equal matrices give equal checksums.
     */
    static double of(float[] matrix, int cols) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int base = 0; base < matrix.length; base += cols) {
            int j = 0;
            for (; j + 4 <= cols; j += 4) {
                s0 += matrix[base + j];
                s1 += matrix[base + j + 1];
                s2 += matrix[base + j + 2];
                s3 += matrix[base + j + 3];
            }
            for (; j < cols; j++) {
                s0 += matrix[base + j];
            }
        }
        return (s0 + s1) + (s2 + s3);
    }
}
