package io.sparkattention.rows;

import io.sparkattention.kernel.NonFinite;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;

import java.util.Arrays;

/**
 * How a matrix column is stored, and how one row's value becomes a row-major float32 matrix.
 *
 * <p>Accepted: {@code array<array<float>>}, {@code array<array<double>>} and
 * {@code array<vector>} (MLlib's {@code VectorUDT}, dense or sparse). Rows of one matrix must all
 * have the same length; different DataFrame rows may differ in both dimensions.
 */
public enum MatrixType implements SequenceDecoder {
    FLOAT, DOUBLE, VECTOR;

    /** The description used in schema errors. */
    public static final String ACCEPTED = "array<array<float>>, array<array<double>> or array<vector>";

    /** Appended to a NaN/±∞ error by the stages that have a {@code handleInvalid} param. */
    public static final String KEEP_HINT = " (handleInvalid=keep lets it propagate)";

    /** The output type of every matrix this library writes. */
    public static final DataType OUTPUT = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);

    /** Catalyst ordinal of a VectorUDT struct's fields: type (0 sparse, 1 dense), size, indices, values. */
    private static final int VEC_TYPE = 0, VEC_SIZE = 1, VEC_INDICES = 2, VEC_VALUES = 3, VEC_FIELDS = 4;

    /** The matrix type of {@code type}, or null when it is not a matrix. */
    public static MatrixType of(DataType type) {
        if (!(type instanceof ArrayType)) {
            return null;
        }
        DataType element = ((ArrayType) type).elementType();
        if (element.equals(SQLDataTypes.VectorType())) {
            return VECTOR;
        }
        if (!(element instanceof ArrayType)) {
            return null;
        }
        DataType scalar = ((ArrayType) element).elementType();
        return scalar.equals(DataTypes.FloatType) ? FLOAT : scalar.equals(DataTypes.DoubleType) ? DOUBLE : null;
    }

    /** -1: each row's nested value carries its own width. */
    @Override
    public int fixedWidth() {
        return -1;
    }

    /**
     * Decodes one row's matrix into {@code buffers}' array for {@code slot} (reused when its
     * length is the matrix's).
     *
     * <p>With {@code finite}, NaN and ±∞ are rejected (the default {@code handleInvalid=error}).
     * Each matrix row is scanned right after it is copied, while it is still in L1, rather than
     * in a second pass over the whole matrix once it has left L2; the error is raised after the
     * loop, so a null, ragged or holed row anywhere in the matrix is still reported first.
     *
     * @param value  the Catalyst value (an outer {@code ArrayData})
     * @param column the column's name, for error messages
     * @param finite reject NaN and ±∞
     * @param hint   appended to a NaN/±∞ error (empty for stages without {@code handleInvalid})
     * @return the matrix; 0 rows gives width 0
     * @throws RowDataException when a row is null, ragged, or holds a null element or (with
     *                          {@code finite}) a NaN or ±∞
     */
    @Override
    public Matrix decode(ArrayData value, String column, boolean finite, String hint, RowBuffers buffers,
                         RowBuffers.Slot slot) {
        int rows = value.numElements();
        if (rows == 0) {
            return new Matrix(0, 0, buffers.floats(slot, 0));
        }
        if (this != VECTOR && value instanceof UnsafeArrayData) {
            return decodeUnsafe((UnsafeArrayData) value, rows, column, finite, hint, buffers, slot);
        }
        int cols = -1;
        float[] data = null;
        int nonFinite = -1;  // the first NaN or ±∞ (flat index), when finite
        for (int i = 0; i < rows; i++) {
            if (value.isNullAt(i)) {
                throw nullRow(column, i);
            }
            if (this == VECTOR) {
                InternalRow vector = value.getStruct(i, VEC_FIELDS);
                cols = checkWidth(column, i, vectorWidth(vector, column, i), cols);
                if (data == null) {
                    data = allocate(column, rows, cols, buffers, slot);
                }
                copyVector(vector, data, i * cols, cols, column, i);
            } else {
                ArrayData row = value.getArray(i);
                cols = checkWidth(column, i, row.numElements(), cols);
                if (data == null) {
                    data = allocate(column, rows, cols, buffers, slot);
                }
                copyRow(row, data, i * cols, column, i);
            }
            if (finite && nonFinite < 0) {
                nonFinite = NonFinite.first(data, i * cols, (i + 1) * cols);
            }
        }
        return checked(new Matrix(rows, cols, data), nonFinite, column, hint);
    }

    /**
     * The usual case (rows from Parquet, a cache or a projection): the outer array's offset words
     * are walked in place (no {@code UnsafeArrayData} per matrix row), each row's null bits are
     * scanned a word of 64 elements at a time, and float rows, stored contiguously after their
     * header, are copied in one go into the matrix.
     */
    private Matrix decodeUnsafe(UnsafeArrayData value, int rows, String column, boolean finite, String hint,
                                RowBuffers buffers, RowBuffers.Slot slot) {
        Object base = value.getBaseObject();
        long array = value.getBaseOffset();
        int cols = -1;
        float[] data = null;
        int nonFinite = -1;
        for (int i = 0; i < rows; i++) {
            if (NestedArrays.isNull(base, array, i)) {
                throw nullRow(column, i);
            }
            long row = NestedArrays.element(base, array, rows, i);
            cols = checkWidth(column, i, NestedArrays.numElements(base, row), cols);
            if (data == null) {
                data = allocate(column, rows, cols, buffers, slot);
            }
            int hole = NestedArrays.firstNull(base, row, cols);
            if (hole >= 0) {
                throw nullElement(column, i, hole);
            }
            long from = NestedArrays.values(row, cols);
            int offset = i * cols;
            if (this == FLOAT) {
                Platform.copyMemory(base, from, data, Platform.FLOAT_ARRAY_OFFSET + 4L * offset, 4L * cols);
            } else {
                for (int j = 0; j < cols; j++) {
                    data[offset + j] = (float) Platform.getDouble(base, from + 8L * j);
                }
            }
            if (finite && nonFinite < 0) {
                nonFinite = NonFinite.first(data, offset, offset + cols);
            }
        }
        return checked(new Matrix(rows, cols, data), nonFinite, column, hint);
    }

    /** The matrix, or the NaN/±∞ error when {@code nonFinite} (a flat index) is not -1. */
    private static Matrix checked(Matrix m, int nonFinite, String column, String hint) {
        if (nonFinite >= 0) {
            throw new RowDataException("column " + column + " has " + m.values[nonFinite] + " at row "
                + nonFinite / m.cols + ", position " + nonFinite % m.cols + hint);
        }
        return m;
    }

    private void copyRow(ArrayData row, float[] data, int offset, String column, int i) {
        int n = row.numElements();
        for (int j = 0; j < n; j++) {
            if (row.isNullAt(j)) {
                throw nullElement(column, i, j);
            }
            data[offset + j] = this == FLOAT ? row.getFloat(j) : (float) row.getDouble(j);
        }
    }

    private static RowDataException nullRow(String column, int i) {
        return new RowDataException("column " + column + " row " + i + " is null");
    }

    private static RowDataException nullElement(String column, int i, int j) {
        return new RowDataException("column " + column + " row " + i + " has a null at position " + j);
    }

    /**
     * A vector's width, after checking that its struct is one MLlib writes: a values array (and
     * for a sparse vector an indices array as long, a size ≥ 0). A vector built by other means
     * than MLlib's encoder can break these, and would otherwise fail with an index error or write
     * into the wrong row.
     */
    private static int vectorWidth(InternalRow vector, String column, int row) {
        if (vector.isNullAt(VEC_TYPE) || vector.isNullAt(VEC_VALUES)) {
            throw badVector(column, row, "has no " + (vector.isNullAt(VEC_TYPE) ? "type" : "values"));
        }
        if (vector.getByte(VEC_TYPE) == 1) {
            return vector.getArray(VEC_VALUES).numElements();
        }
        if (vector.isNullAt(VEC_SIZE) || vector.isNullAt(VEC_INDICES)) {
            throw badVector(column, row, "is sparse without " + (vector.isNullAt(VEC_SIZE) ? "a size" : "indices"));
        }
        int size = vector.getInt(VEC_SIZE);
        int indices = vector.getArray(VEC_INDICES).numElements(), values = vector.getArray(VEC_VALUES).numElements();
        if (size < 0 || indices != values) {
            throw badVector(column, row, size < 0 ? "has size " + size
                : "has " + indices + " indices but " + values + " values");
        }
        return size;
    }

    private static RowDataException badVector(String column, int row, String what) {
        return new RowDataException("column " + column + " row " + row + ": the vector " + what);
    }

    /** Copies a vector checked by {@link #vectorWidth}; a sparse index outside [0, cols) is refused. */
    private static void copyVector(InternalRow vector, float[] data, int offset, int cols, String column, int row) {
        double[] values = vector.getArray(VEC_VALUES).toDoubleArray();
        if (vector.getByte(VEC_TYPE) == 1) {
            for (int j = 0; j < cols; j++) {
                data[offset + j] = (float) values[j];
            }
        } else {
            int[] indices = vector.getArray(VEC_INDICES).toIntArray();
            Arrays.fill(data, offset, offset + cols, 0f);  // a reused buffer holds the previous row's values
            for (int j = 0; j < indices.length; j++) {
                int index = indices[j];
                if (index < 0 || index >= cols) {
                    throw badVector(column, row, "has index " + index + " outside its size " + cols);
                }
                data[offset + index] = (float) values[j];
            }
        }
    }

    private static int checkWidth(String column, int row, int width, int expected) {
        if (expected >= 0 && width != expected) {
            throw new RowDataException("column " + column + " row " + row + " has " + width + " values, expected "
                + expected + " (as row 0)");
        }
        return width;
    }

    private static float[] allocate(String column, int rows, int cols, RowBuffers buffers, RowBuffers.Slot slot) {
        if ((long) rows * cols > Integer.MAX_VALUE - 8) {
            throw new RowDataException("column " + column + " is " + rows + "×" + cols + ", too large for one array");
        }
        return buffers.floats(slot, rows * cols);
    }

    /** A decoded row-major matrix. */
    public static final class Matrix {
        public final int rows;
        public final int cols;
        public final float[] values;

        Matrix(int rows, int cols, float[] values) {
            this.rows = rows;
            this.cols = cols;
            this.values = values;
        }
    }
}
