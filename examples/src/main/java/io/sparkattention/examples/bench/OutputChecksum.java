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

    /** The checksum of the array&lt;array&lt;float&gt;&gt; column {@code matrix}. */
    static Column of(Column matrix) {
        return RowFunctions.column("checksum", new OutputChecksum(), DataTypes.DoubleType, null, List.of(matrix));
    }

    @Override
    public Object apply(Object[] inputs) {
        ArrayData m = (ArrayData) inputs[0];
        if (m == null) {
            return null;
        }
        double sum = 0;
        for (int i = 0; i < m.numElements(); i++) {
            ArrayData row = m.getArray(i);
            for (int j = 0; j < row.numElements(); j++) {
                sum += row.getFloat(j);
            }
        }
        return sum;
    }
}
