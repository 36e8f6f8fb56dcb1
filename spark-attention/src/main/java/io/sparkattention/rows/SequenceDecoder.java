package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.util.ArrayData;

import java.io.Serializable;

/**
 * How one row's value of a sequence column (L positions of a fixed width) becomes a row-major
 * float32 matrix: {@link MatrixType} for the nested types, {@link FlatSequence} for a flat
 * {@code array<float>} of L·W values.
 */
public interface SequenceDecoder extends Serializable {

    /**
     * Decodes one row's value into a new array.
     *
     * @param value  the Catalyst value (an {@code ArrayData})
     * @param column the column's name, for error messages
     * @param finite reject NaN and ±∞
     * @return the L×W matrix
     * @throws io.sparkattention.rows.RowDataException when the value is unusable, naming the column
     */
    default MatrixType.Matrix decode(ArrayData value, String column, boolean finite) {
        return decode(value, column, finite, MatrixType.KEEP_HINT);
    }

    /** Decodes one row's value into a new array, with {@code hint} appended to a NaN/±∞ error. */
    default MatrixType.Matrix decode(ArrayData value, String column, boolean finite, String hint) {
        return decode(value, column, finite, hint, RowBuffers.none(), RowBuffers.Slot.QUERY);
    }

    /**
     * Decodes one row's value into {@code buffers}' array for {@code slot} (reused when its length
     * is the matrix's), with {@code hint} appended to a NaN/±∞ error.
     */
    MatrixType.Matrix decode(ArrayData value, String column, boolean finite, String hint, RowBuffers buffers,
                             RowBuffers.Slot slot);

    /** The width every row has, or -1 when each row's value carries its own (nested types). */
    int fixedWidth();
}
