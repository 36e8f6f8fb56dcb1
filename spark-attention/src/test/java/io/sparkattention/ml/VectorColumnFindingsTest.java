package io.sparkattention.ml;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

/**
 * Rows of an {@code array<vector>} query column whose VectorUDT fields disagree, as a hostile
 * Parquet file can hold them (StageRowsFuzzTest's findings): each must be refused with a
 * {@link RowDataException} naming the column and row, as the other matrix types are.
 */
class VectorColumnFindingsTest {

    /** VectorUDT's Catalyst form: type (0 sparse, 1 dense), size, indices, values. */
    private static InternalRow sparse(int size, int[] indices, double[] values) {
        Object[] idx = indices == null ? null : Arrays.stream(indices).boxed().toArray();
        Object[] val = values == null ? null : Arrays.stream(values).boxed().toArray();
        return new GenericInternalRow(new Object[] {(byte) 0, size, idx == null ? null : new GenericArrayData(idx),
            val == null ? null : new GenericArrayData(val)});
    }

    private static InternalRow dense(double[] values) {
        Object[] val = values == null ? null : Arrays.stream(values).boxed().toArray();
        return new GenericInternalRow(new Object[] {(byte) 1, null, null, val == null ? null : new GenericArrayData(val)});
    }

    private static void assertRefused(InternalRow... vectors) {
        InternalRow row = new GenericInternalRow(new Object[] {new GenericArrayData(vectors), null});
        StageRow stage = FuzzStages.over(FuzzStages.VECTORS).get(0);
        RowDataException e = assertThrows(RowDataException.class, () -> stage.apply(row));
        assertTrue(e.getMessage().contains("column query"), e.getMessage());
    }

    @Test
    @DisplayName("a sparse vector with more indices than values is refused")
    void moreIndicesThanValues() {
        assertRefused(sparse(3, new int[] {0, 1}, new double[] {1}));
    }

    @Test
    @DisplayName("a sparse index at or past the vector's size is refused, not written into the next row")
    void indexPastSize() {
        assertRefused(sparse(2, new int[] {3}, new double[] {7}), sparse(2, new int[0], new double[0]));
    }

    @Test
    @DisplayName("a negative sparse index is refused")
    void negativeIndex() {
        assertRefused(sparse(2, new int[] {-1}, new double[] {7}));
    }

    @Test
    @DisplayName("a sparse vector of negative size is refused")
    void negativeSize() {
        assertRefused(sparse(-1, new int[0], new double[0]));
    }

    @Test
    @DisplayName("a vector whose values field is null is refused")
    void nullValues() {
        assertRefused(dense(null));
    }
}
