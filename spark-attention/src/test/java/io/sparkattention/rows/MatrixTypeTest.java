package io.sparkattention.rows;

import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Decoding one row's matrix, from Catalyst's generic and unsafe (binary) arrays alike. */
class MatrixTypeTest {

    private static final DataType FLOATS = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private static final DataType DOUBLES = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType));

    /** A rows×cols matrix with a(i, j) = i·1000 + j, as generic arrays of boxed values; {@code hole} (i, j) is null. */
    private static GenericArrayData generic(int rows, int cols, boolean doubles, int holeRow, int holeCol) {
        Object[] outer = new Object[rows];
        for (int i = 0; i < rows; i++) {
            Object[] row = new Object[cols];
            for (int j = 0; j < cols; j++) {
                row[j] = i == holeRow && j == holeCol ? null : doubles ? (Object) (double) (i * 1000 + j)
                    : (Object) (float) (i * 1000 + j);
            }
            outer[i] = new GenericArrayData(row);
        }
        return new GenericArrayData(outer);
    }

    /** The same value in Catalyst's binary format, as Parquet, caches and projections hand it over. */
    private static ArrayData unsafe(GenericArrayData value, DataType type) {
        UnsafeProjection projection = UnsafeProjection.create(new DataType[] {type});
        ArrayData converted = projection.apply(new GenericInternalRow(new Object[] {value})).getArray(0);
        assertInstanceOf(UnsafeArrayData.class, converted.getArray(0));
        return converted;
    }

    private static float[] expected(int rows, int cols) {
        float[] m = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                m[i * cols + j] = i * 1000 + j;
            }
        }
        return m;
    }

    @Test
    @DisplayName("float and double rows, generic or unsafe, decode to the same row-major matrix (widths across null-bit words)")
    void decodesEveryRepresentation() {
        for (int cols : new int[] {1, 63, 64, 65, 130}) {
            float[] want = expected(3, cols);
            assertArrayEquals(want, MatrixType.FLOAT.decode(generic(3, cols, false, -1, -1), "q", false).values);
            assertArrayEquals(want, MatrixType.FLOAT.decode(unsafe(generic(3, cols, false, -1, -1), FLOATS), "q", false).values);
            assertArrayEquals(want, MatrixType.DOUBLE.decode(generic(3, cols, true, -1, -1), "q", false).values);
            assertArrayEquals(want, MatrixType.DOUBLE.decode(unsafe(generic(3, cols, true, -1, -1), DOUBLES), "q", false).values);
        }
    }

    @Test
    @DisplayName("a null element is an error naming the column, the matrix row and the position, in either representation")
    void nullElementIsNamed() {
        for (int[] hole : new int[][] {{0, 0}, {1, 63}, {2, 64}, {2, 129}}) {
            String message = "column q row " + hole[0] + " has a null at position " + hole[1];
            RowDataException g = assertThrows(RowDataException.class,
                () -> MatrixType.FLOAT.decode(generic(3, 130, false, hole[0], hole[1]), "q", false));
            assertEquals(message, g.getMessage());
            RowDataException u = assertThrows(RowDataException.class,
                () -> MatrixType.FLOAT.decode(unsafe(generic(3, 130, false, hole[0], hole[1]), FLOATS), "q", false));
            assertEquals(message, u.getMessage());
            RowDataException d = assertThrows(RowDataException.class,
                () -> MatrixType.DOUBLE.decode(unsafe(generic(3, 130, true, hole[0], hole[1]), DOUBLES), "q", false));
            assertEquals(message, d.getMessage());
        }
    }

    @Test
    @DisplayName("ragged rows are an error naming the row and both widths")
    void raggedRows() {
        GenericArrayData ragged = new GenericArrayData(new Object[] {
            new GenericArrayData(new Object[] {1f, 2f}), new GenericArrayData(new Object[] {1f, 2f, 3f})});
        RowDataException e = assertThrows(RowDataException.class, () -> MatrixType.FLOAT.decode(ragged, "q", false));
        assertTrue(e.getMessage().contains("row 1"), e.getMessage());
    }

    @Test
    @DisplayName("when asked, NaN and ±∞ are errors naming the column, the matrix row and the position; otherwise they are kept")
    void nonFiniteValues() {
        for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
            for (int[] at : new int[][] {{0, 0}, {1, 64}, {2, 129}}) {
                GenericArrayData m = generic(3, 130, false, -1, -1);
                ((GenericArrayData) m.getArray(at[0])).update(at[1], bad);
                for (ArrayData value : new ArrayData[] {m, unsafe(m, FLOATS)}) {
                    RowDataException e = assertThrows(RowDataException.class,
                        () -> MatrixType.FLOAT.decode(value, "q", true));
                    assertEquals("column q has " + bad + " at row " + at[0] + ", position " + at[1]
                        + " (handleInvalid=keep lets it propagate)", e.getMessage());
                    float[] kept = MatrixType.FLOAT.decode(value, "q", false).values;
                    assertEquals(bad, kept[at[0] * 130 + at[1]]);
                }
            }
        }
        // A finite double beyond float's range becomes ±∞, and is rejected as such.
        GenericArrayData big = generic(2, 3, true, -1, -1);
        ((GenericArrayData) big.getArray(1)).update(2, 1e39);
        for (ArrayData value : new ArrayData[] {big, unsafe(big, DOUBLES)}) {
            RowDataException e = assertThrows(RowDataException.class, () -> MatrixType.DOUBLE.decode(value, "k", true));
            assertEquals("column k has Infinity at row 1, position 2 (handleInvalid=keep lets it propagate)",
                e.getMessage());
        }
        // MLlib vectors, dense and sparse.
        VectorUDT udt = new VectorUDT();
        ArrayData vectors = new GenericArrayData(new Object[] {
            udt.serialize(Vectors.dense(1, 2, 3)), udt.serialize(Vectors.sparse(3, new int[] {1}, new double[] {Double.NaN}))});
        RowDataException e = assertThrows(RowDataException.class, () -> MatrixType.VECTOR.decode(vectors, "v", true));
        assertEquals("column v has NaN at row 1, position 1 (handleInvalid=keep lets it propagate)", e.getMessage());
    }

    @Test
    @DisplayName("a null, ragged or holed row is reported before a NaN or ±∞, wherever each is in the matrix")
    void structuralErrorsComeFirst() {
        GenericArrayData m = generic(3, 5, false, 2, 4);
        ((GenericArrayData) m.getArray(0)).update(1, Float.NaN);
        RowDataException e = assertThrows(RowDataException.class, () -> MatrixType.FLOAT.decode(m, "q", true));
        assertEquals("column q row 2 has a null at position 4", e.getMessage());
    }

    /** A rows×cols float matrix whose rows in {@code nullRows} are null, in Catalyst's binary format. */
    private static ArrayData withNullRows(int rows, int cols, int... nullRows) {
        GenericArrayData m = generic(rows, cols, false, -1, -1);
        for (int i : nullRows) {
            m.update(i, null);
        }
        ArrayData converted = UnsafeProjection.create(new DataType[] {FLOATS})
            .apply(new GenericInternalRow(new Object[] {m})).getArray(0);
        return assertInstanceOf(UnsafeArrayData.class, converted);
    }

    @Test
    @DisplayName("a null matrix row is named in either representation, past the first null-bit word too, and before a later ragged row")
    void nullMatrixRowIsNamed() {
        for (int row : new int[] {0, 63, 64, 70}) {
            RowDataException u = assertThrows(RowDataException.class,
                () -> MatrixType.FLOAT.decode(withNullRows(71, 3, row), "q", false));
            assertEquals("column q row " + row + " is null", u.getMessage());
            GenericArrayData g = generic(71, 3, false, -1, -1);
            g.update(row, null);
            assertEquals(u.getMessage(), assertThrows(RowDataException.class,
                () -> MatrixType.FLOAT.decode(g, "q", false)).getMessage());
        }
        GenericArrayData m = generic(3, 2, false, -1, -1);
        m.update(1, new GenericArrayData(new Object[] {1f}));
        m.update(2, null);
        RowDataException e = assertThrows(RowDataException.class, () -> MatrixType.FLOAT.decode(unsafe(m, FLOATS), "q", false));
        assertEquals("column q row 1 has 1 values, expected 2 (as row 0)", e.getMessage());
    }

    @Test
    @DisplayName("decoding into reused buffers: same length reuses the array with the new row's values, another length gets a new array")
    void reusedBuffers() {
        RowBuffers buffers = new RowBuffers();
        float[] first = MatrixType.FLOAT.decode(unsafe(generic(3, 5, false, -1, -1), FLOATS), "q", true, "", buffers,
            RowBuffers.Slot.QUERY).values;
        GenericArrayData other = generic(5, 3, true, -1, -1);
        ((GenericArrayData) other.getArray(4)).update(2, -7.5);
        float[] second = MatrixType.DOUBLE.decode(unsafe(other, DOUBLES), "q", true, "", buffers,
            RowBuffers.Slot.QUERY).values;
        assertSame(first, second, "15 values both times: one array");
        float[] want = expected(5, 3);
        want[14] = -7.5f;
        assertArrayEquals(want, second);
        float[] longer = MatrixType.FLOAT.decode(unsafe(generic(4, 5, false, -1, -1), FLOATS), "q", true, "", buffers,
            RowBuffers.Slot.QUERY).values;
        assertEquals(20, longer.length);
        assertArrayEquals(expected(4, 5), longer);
        float[] key = MatrixType.FLOAT.decode(unsafe(generic(4, 5, false, -1, -1), FLOATS), "k", true, "", buffers,
            RowBuffers.Slot.KEY).values;
        assertNotSame(longer, key, "slots never share an array");
        assertNotSame(MatrixType.FLOAT.decode(generic(1, 2, false, -1, -1), "q", true).values,
            MatrixType.FLOAT.decode(generic(1, 2, false, -1, -1), "q", true).values, "without buffers: a new array");
    }

    @Test
    @DisplayName("a sparse vector row decoded into a reused buffer has zeros where the previous row had values")
    void sparseVectorsIntoReusedBuffer() {
        VectorUDT udt = new VectorUDT();
        RowBuffers buffers = new RowBuffers();
        ArrayData dense = new GenericArrayData(new Object[] {udt.serialize(Vectors.dense(1, 2, 3)),
            udt.serialize(Vectors.dense(4, 5, 6))});
        ArrayData sparse = new GenericArrayData(new Object[] {udt.serialize(Vectors.sparse(3, new int[] {1}, new double[] {9})),
            udt.serialize(Vectors.sparse(3, new int[0], new double[0]))});
        MatrixType.VECTOR.decode(dense, "v", true, "", buffers, RowBuffers.Slot.VALUE);
        assertArrayEquals(new float[] {0, 9, 0, 0, 0, 0},
            MatrixType.VECTOR.decode(sparse, "v", true, "", buffers, RowBuffers.Slot.VALUE).values);
    }
}
