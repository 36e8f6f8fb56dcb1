package io.sparkattention.ml;

import org.apache.spark.sql.catalyst.util.ArrayData;

import java.io.Serializable;

/**
 * How one row's value of a sequence column (L positions of a fixed width) becomes a row-major
 * float32 matrix: {@link MatrixType} for the nested types, {@link FlatSequence} for a flat
 * {@code array<float>} of L·W values.
 */
interface SequenceDecoder extends Serializable {

    /**
     * @param value  the Catalyst value (an {@code ArrayData})
     * @param column the column's name, for error messages
     * @param finite reject NaN and ±∞
     * @return the L×W matrix
     * @throws io.sparkattention.exec.RowDataException when the value is unusable, naming the column
     */
    MatrixType.Matrix decode(ArrayData value, String column, boolean finite);

    /** The width every row has, or -1 when each row's value carries its own (nested types). */
    int fixedWidth();
}
