package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Mask and bias columns decode alike from generic and binary arrays, with the same errors. */
class PlaneColumnTest {

    private static DataType nested(DataType element, boolean perHead) {
        DataType plane = DataTypes.createArrayType(DataTypes.createArrayType(element));
        return perHead ? DataTypes.createArrayType(plane) : plane;
    }

    /** planes×L×S values from {@code element(flat index)} as generic arrays (one plane unwrapped unless perHead). */
    private static GenericArrayData generic(int planes, int L, int S, boolean perHead, Function<Integer, Object> element) {
        Object[] out = new Object[planes];
        for (int h = 0; h < planes; h++) {
            Object[] rows = new Object[L];
            for (int i = 0; i < L; i++) {
                Object[] row = new Object[S];
                for (int j = 0; j < S; j++) {
                    row[j] = element.apply((h * L + i) * S + j);
                }
                rows[i] = new GenericArrayData(row);
            }
            out[h] = new GenericArrayData(rows);
        }
        return perHead ? new GenericArrayData(out) : (GenericArrayData) out[0];
    }

    private static UnsafeArrayData unsafe(ArrayData value, DataType type) {
        ArrayData converted = UnsafeProjection.create(new DataType[] {type})
            .apply(new GenericInternalRow(new Object[] {value})).getArray(0);
        return (UnsafeArrayData) converted;
    }

    @ParameterizedTest(name = "heads {0}, {1}×{2}, per head {3}")
    @CsvSource({"1, 1, 1, false", "3, 4, 9, false", "3, 4, 9, true", "2, 2, 70, true", "2, 0, 5, true", "1, 3, 0, false"})
    @DisplayName("masks and float or double biases decode to the same array from generic and binary values")
    void sameValuesEitherWay(int heads, int L, int S, boolean perHead) {
        int planes = perHead ? heads : 1;
        Random rnd = new Random(heads * 100 + L * 10 + S);
        boolean[] allowed = new boolean[planes * L * S];
        float[] bias = new float[planes * L * S];
        for (int i = 0; i < bias.length; i++) {
            allowed[i] = rnd.nextBoolean();
            bias[i] = i % 5 == 4 ? Float.NEGATIVE_INFINITY : (float) rnd.nextGaussian();
        }
        PlaneColumn mask = PlaneColumn.mask("m", nested(DataTypes.BooleanType, perHead));
        GenericArrayData m = generic(planes, L, S, perHead, i -> allowed[i]);
        assertArrayEquals(allowed, mask.decodeMask(m, heads, L, S));
        assertArrayEquals(allowed, mask.decodeMask(unsafe(m, nested(DataTypes.BooleanType, perHead)), heads, L, S,
            new RowBuffers()));
        for (DataType t : new DataType[] {DataTypes.FloatType, DataTypes.DoubleType}) {
            PlaneColumn column = PlaneColumn.bias("b", nested(t, perHead));
            GenericArrayData b = generic(planes, L, S, perHead,
                i -> t == DataTypes.FloatType ? (Object) bias[i] : (Object) (double) bias[i]);
            assertArrayEquals(bias, column.decodeBias(b, heads, L, S, false), t + " generic");
            assertArrayEquals(bias, column.decodeBias(unsafe(b, nested(t, perHead)), heads, L, S, false,
                new RowBuffers()), t + " binary");
        }
    }

    /** Decodes {@code value} both ways and returns the common error message. */
    private static String error(PlaneColumn column, GenericArrayData value, DataType type, int heads, int L, int S) {
        boolean mask = column.element == PlaneColumn.Element.BOOLEAN;
        String g = assertThrows(RowDataException.class, () -> {
            if (mask) {
                column.decodeMask(value, heads, L, S);
            } else {
                column.decodeBias(value, heads, L, S, false);
            }
        }).getMessage();
        String u = assertThrows(RowDataException.class, () -> {
            if (mask) {
                column.decodeMask(unsafe(value, type), heads, L, S, new RowBuffers());
            } else {
                column.decodeBias(unsafe(value, type), heads, L, S, false, new RowBuffers());
            }
        }).getMessage();
        assertEquals(g, u, "binary and generic values give the same error");
        return g;
    }

    @Test
    @DisplayName("null planes, rows and elements, wrong shapes and NaN or +∞ are named alike in either representation")
    void errorsEitherWay() {
        DataType maskType = nested(DataTypes.BooleanType, true);
        PlaneColumn mask = PlaneColumn.mask("m", maskType);
        GenericArrayData holed = generic(2, 3, 4, true, i -> i == 21 ? null : (Object) true);
        assertEquals("column m head 1 row 2 has a null at position 1", error(mask, holed, maskType, 2, 3, 4));
        GenericArrayData nullPlane = generic(2, 3, 4, true, i -> true);
        nullPlane.update(1, null);
        assertEquals("column m head 1 has null, expected 3 (the query length)", error(mask, nullPlane, maskType, 2, 3, 4));
        assertEquals("column m has 2 head planes, expected 3 (numHeads)",
            error(mask, generic(2, 3, 4, true, i -> true), maskType, 3, 3, 4));
        assertEquals("column m head 0 has 3 rows, expected 2 (the query length)",
            error(mask, generic(2, 3, 4, true, i -> true), maskType, 2, 2, 4));
        GenericArrayData ragged = generic(2, 3, 4, true, i -> true);
        ((GenericArrayData) ragged.getArray(0)).update(2, new GenericArrayData(new Object[] {true}));
        ((GenericArrayData) ragged.getArray(1)).update(0, null);
        assertEquals("column m head 0 row 2 has 1 values, expected 4 (the key length)", error(mask, ragged, maskType, 2, 3, 4));

        DataType biasType = nested(DataTypes.FloatType, false);
        PlaneColumn bias = PlaneColumn.bias("b", biasType);
        GenericArrayData nanFirst = generic(1, 2, 5, false, i -> i == 6 ? Float.NaN : i == 8 ? null : (Object) 0f);
        assertEquals("column b row 1 has NaN at position 1 (only -Infinity masks a key; handleInvalid=keep lets it propagate)",
            error(bias, nanFirst, biasType, 1, 2, 5));
        GenericArrayData nullFirst = generic(1, 2, 5, false, i -> i == 6 ? null : i == 8 ? Float.POSITIVE_INFINITY : (Object) 0f);
        assertEquals("column b row 1 has a null at position 1", error(bias, nullFirst, biasType, 1, 2, 5));
        GenericArrayData nullRow = generic(1, 2, 5, false, i -> 0f);
        nullRow.update(1, null);
        assertEquals("column b row 1 has null, expected 5 (the key length)", error(bias, nullRow, biasType, 1, 2, 5));
    }

    @Test
    @DisplayName("decoding into reused buffers keeps one array per length and overwrites it with the new row")
    void reusedBuffers() {
        DataType type = nested(DataTypes.DoubleType, false);
        PlaneColumn bias = PlaneColumn.bias("b", type);
        RowBuffers buffers = new RowBuffers();
        float[] first = bias.decodeBias(unsafe(generic(1, 2, 3, false, i -> (double) i), type), 4, 2, 3, false, buffers);
        float[] second = bias.decodeBias(unsafe(generic(1, 2, 3, false, i -> 1.0 - 2.0 * i), type), 4, 2, 3, false, buffers);
        assertSame(first, second);
        assertArrayEquals(new float[] {1, -1, -3, -5, -7, -9}, second);
    }
}
