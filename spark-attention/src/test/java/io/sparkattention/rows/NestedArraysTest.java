package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Spark's nested array layout written in one buffer and read in place, checked against Spark's own writer. */
class NestedArraysTest {

    /** rows×cols values starting at {@code offset} of a random array with room on both sides. */
    private static float[] values(long seed, int offset, int n) {
        Random rnd = new Random(seed);
        float[] a = new float[offset + n + 3];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) rnd.nextGaussian();
        }
        return a;
    }

    /** The value as Spark's previous encoding built it: generic outer arrays of unsafe float rows. */
    private static ArrayData generic(float[] values, int offset, int rows, int cols) {
        Object[] out = new Object[rows];
        for (int i = 0; i < rows; i++) {
            float[] row = new float[cols];
            System.arraycopy(values, offset + i * cols, row, 0, cols);
            out[i] = UnsafeArrayData.fromPrimitiveArray(row);
        }
        return new GenericArrayData(out);
    }

    /** The same value with boxed elements, which Spark's writer copies element by element. */
    private static ArrayData boxed(float[] values, int offset, int rows, int cols) {
        Object[] out = new Object[rows];
        for (int i = 0; i < rows; i++) {
            Object[] row = new Object[cols];
            for (int j = 0; j < cols; j++) {
                row[j] = values[offset + i * cols + j];
            }
            out[i] = new GenericArrayData(row);
        }
        return new GenericArrayData(out);
    }

    /** The bytes of a binary array. */
    private static byte[] bytes(UnsafeArrayData a) {
        byte[] out = new byte[a.getSizeInBytes()];
        Platform.copyMemory(a.getBaseObject(), a.getBaseOffset(), out, Platform.BYTE_ARRAY_OFFSET, out.length);
        return out;
    }

    /** What Spark's UnsafeProjection writes for {@code value} of {@code type}. */
    private static byte[] sparkBytes(Object value, DataType type) {
        UnsafeProjection projection = UnsafeProjection.create(new DataType[] {type});
        return bytes((UnsafeArrayData) projection.apply(new GenericInternalRow(new Object[] {value})).getArray(0));
    }

    @ParameterizedTest(name = "{0}×{1}")
    @CsvSource({"0, 0", "0, 5", "1, 0", "3, 0", "1, 1", "2, 1", "3, 5", "5, 7", "2, 64", "1, 65", "65, 3", "130, 2"})
    @DisplayName("a matrix's bytes are the bytes Spark's projection writes for the same floats, boxed or as float rows")
    void matrixBytesAreSparks(int rows, int cols) {
        int offset = 5;
        float[] v = values(rows * 31L + cols, offset, rows * cols);
        UnsafeArrayData ours = NestedArrays.matrix(v, offset, rows, cols);
        assertArrayEquals(sparkBytes(boxed(v, offset, rows, cols), MatrixType.OUTPUT), bytes(ours), "vs boxed");
        assertArrayEquals(sparkBytes(generic(v, offset, rows, cols), MatrixType.OUTPUT), bytes(ours),
            "vs float rows");
        assertEquals(rows, ours.numElements());
        for (int i = 0; i < rows; i++) {
            float[] want = new float[cols];
            System.arraycopy(v, offset + i * cols, want, 0, cols);
            assertArrayEquals(want, ours.getArray(i).toFloatArray(), "row " + i + " through Spark's accessors");
        }
    }

    @ParameterizedTest(name = "{0}×{1}×{2}")
    @CsvSource({"1, 2, 3", "3, 0, 4", "2, 3, 0", "4, 5, 7", "1, 1, 1", "65, 1, 2"})
    @DisplayName("per-head planes' bytes are the bytes Spark's projection writes for the same floats")
    void planesBytesAreSparks(int planes, int rows, int cols) {
        float[] v = values(planes * 7L + rows * 31L + cols, 0, planes * rows * cols);
        Object[] generic = new Object[planes];
        for (int p = 0; p < planes; p++) {
            generic[p] = boxed(v, p * rows * cols, rows, cols);
        }
        UnsafeArrayData ours = NestedArrays.planes(v, planes, rows, cols);
        assertArrayEquals(sparkBytes(new GenericArrayData(generic), PlaneColumn.weightsType(true)), bytes(ours));
        for (int p = 0; p < planes; p++) {
            assertArrayEquals(sparkBytes(generic[p], MatrixType.OUTPUT), bytes(ours.getArray(p)),
                "plane " + p + " reads back as a matrix");
        }
    }

    @ParameterizedTest(name = "{0}×{1}")
    @CsvSource({"1, 0", "3, 5", "70, 9", "2, 130"})
    @DisplayName("the in-place readers find every row, its length, its values and its first null, as Spark's accessors do")
    void readersAgreeWithSpark(int rows, int cols) {
        Object[] outer = new Object[rows];
        for (int i = 0; i < rows; i++) {
            Object[] row = new Object[cols];
            for (int j = 0; j < cols; j++) {
                row[j] = (i + j) % 67 == 66 ? null : (Object) (float) (i * 1000 + j);
            }
            outer[i] = i % 9 == 8 ? null : new GenericArrayData(row);
        }
        DataType type = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
        UnsafeArrayData value = (UnsafeArrayData) UnsafeProjection.create(new DataType[] {type})
            .apply(new GenericInternalRow(new Object[] {new GenericArrayData(outer)})).getArray(0);
        Object base = value.getBaseObject();
        long array = value.getBaseOffset();
        assertEquals(rows, NestedArrays.numElements(base, array));
        for (int i = 0; i < rows; i++) {
            assertEquals(value.isNullAt(i), NestedArrays.isNull(base, array, i), "row " + i + " null bit");
            if (value.isNullAt(i)) {
                continue;
            }
            ArrayData spark = value.getArray(i);
            long row = NestedArrays.element(base, array, rows, i);
            assertEquals(spark.numElements(), NestedArrays.numElements(base, row));
            int firstNull = -1;
            for (int j = cols - 1; j >= 0; j--) {
                firstNull = spark.isNullAt(j) ? j : firstNull;
            }
            assertEquals(firstNull, NestedArrays.firstNull(base, row, cols), "row " + i + " first null");
            long at = NestedArrays.values(row, cols);
            for (int j = 0; j < cols; j++) {
                if (!spark.isNullAt(j)) {
                    assertEquals(spark.getFloat(j), Platform.getFloat(base, at + 4L * j), "row " + i + " value " + j);
                }
            }
        }
        assertFalse(rows > 8 && !NestedArrays.isNull(base, array, 8), "the fixture has null rows");
    }
}
