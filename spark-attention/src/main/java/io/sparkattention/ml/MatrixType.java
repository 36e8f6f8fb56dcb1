package io.sparkattention.ml;

import io.sparkattention.exec.RowDataException;
import io.sparkattention.kernel.NonFinite;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;


/**
 * How a matrix column is stored, and how one row's value becomes a row-major float32 matrix.
 *
 * <p>Accepted: {@code array<array<float>>}, {@code array<array<double>>} and
 * {@code array<vector>} (MLlib's {@code VectorUDT}, dense or sparse). Rows of one matrix must all
 * have the same length; different DataFrame rows may differ in both dimensions.
 */
enum MatrixType implements SequenceDecoder {
    FLOAT, DOUBLE, VECTOR;

    /** The description used in schema errors. */
    static final String ACCEPTED = "array<array<float>>, array<array<double>> or array<vector>";

    /** Appended to a NaN/±∞ error by the stages that have a {@code handleInvalid} param. */
    static final String KEEP_HINT = " (handleInvalid=keep lets it propagate)";

    /** The output type of every matrix this library writes. */
    static final DataType OUTPUT = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);

    /** Catalyst ordinal of a VectorUDT struct's fields: type (0 sparse, 1 dense), size, indices, values. */
    private static final int VEC_TYPE = 0, VEC_SIZE = 1, VEC_INDICES = 2, VEC_VALUES = 3, VEC_FIELDS = 4;

    /** The matrix type of {@code type}, or null when it is not a matrix. */
    static MatrixType of(DataType type) {
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

    /**
     * Decodes one row's matrix.
     *
     * <p>With {@code finite}, NaN and ±∞ are rejected (the default {@code handleInvalid=error}).
     * Each matrix row is scanned right after it is copied, while it is still in L1, rather than
     * in a second pass over the whole matrix once it has left L2; the error is raised after the
     * loop, so a null, ragged or holed row anywhere in the matrix is still reported first.
     *
     * @param value  the Catalyst value (an outer {@code ArrayData})
     * @param column the column's name, for error messages
     * @param finite reject NaN and ±∞
     * @return the matrix; 0 rows gives width 0
     * @throws RowDataException when a row is null, ragged, or holds a null element or (with
     *                          {@code finite}) a NaN or ±∞
     */
    @Override
    public Matrix decode(ArrayData value, String column, boolean finite) {
        return decode(value, column, finite, KEEP_HINT);
    }

    /** -1: each row's nested value carries its own width. */
    @Override
    public int fixedWidth() {
        return -1;
    }

    /**
     * Decodes one row's matrix as {@link #decode(ArrayData, String, boolean)} does, with
     * {@code hint} appended to a NaN/±∞ error (empty for stages without {@code handleInvalid}).
     */
    Matrix decode(ArrayData value, String column, boolean finite, String hint) {
        int rows = value.numElements();
        if (rows == 0) {
            return new Matrix(0, 0, new float[0]);
        }
        int cols = -1;
        float[] data = null;
        int nonFinite = -1;  // the first NaN or ±∞ (flat index), when finite
        for (int i = 0; i < rows; i++) {
            if (value.isNullAt(i)) {
                throw new RowDataException("column " + column + " row " + i + " is null");
            }
            if (this == VECTOR) {
                InternalRow vector = value.getStruct(i, VEC_FIELDS);
                int width = vector.getByte(VEC_TYPE) == 1 ? vector.getArray(VEC_VALUES).numElements()
                    : vector.getInt(VEC_SIZE);
                cols = checkWidth(column, i, width, cols);
                if (data == null) {
                    data = allocate(column, rows, cols);
                }
                copyVector(vector, data, i * cols, cols);
            } else {
                ArrayData row = value.getArray(i);
                cols = checkWidth(column, i, row.numElements(), cols);
                if (data == null) {
                    data = allocate(column, rows, cols);
                }
                copyRow(row, data, i * cols, column, i);
            }
            if (finite && nonFinite < 0) {
                nonFinite = NonFinite.first(data, i * cols, (i + 1) * cols);
            }
        }
        if (nonFinite >= 0) {
            throw new RowDataException("column " + column + " has " + data[nonFinite] + " at row " + nonFinite / cols
                + ", position " + nonFinite % cols + hint);
        }
        return new Matrix(rows, cols, data);
    }

    private void copyRow(ArrayData row, float[] data, int offset, String column, int i) {
        int n = row.numElements();
        if (row instanceof UnsafeArrayData) {
            copyUnsafeRow((UnsafeArrayData) row, n, data, offset, column, i);
            return;
        }
        for (int j = 0; j < n; j++) {
            if (row.isNullAt(j)) {
                throw nullElement(column, i, j);
            }
            data[offset + j] = this == FLOAT ? row.getFloat(j) : (float) row.getDouble(j);
        }
    }

    /**
     * The usual case (rows from Parquet, a cache or a projection): the null bits are scanned a
     * word of 64 elements at a time, and float elements, stored contiguously after the header,
     * are copied in one go into the matrix — no per-element call, no temporary array (a
     * per-element copy takes a sixth of the executor's samples in {@code bench --spark} at n = 512).
     */
    private void copyUnsafeRow(UnsafeArrayData row, int n, float[] data, int offset, String column, int i) {
        Object base = row.getBaseObject();
        long header = UnsafeArrayData.calculateHeaderPortionInBytes(n);
        // Layout: numElements (8 bytes), then the null bits in 8-byte words, then the elements.
        for (long word = row.getBaseOffset() + 8, end = row.getBaseOffset() + header; word < end; word += 8) {
            if (Platform.getLong(base, word) != 0) {
                for (int j = 0; j < n; j++) {
                    if (row.isNullAt(j)) {
                        throw nullElement(column, i, j);
                    }
                }
            }
        }
        if (this == FLOAT) {
            Platform.copyMemory(base, row.getBaseOffset() + header, data, Platform.FLOAT_ARRAY_OFFSET + 4L * offset,
                4L * n);
        } else {
            for (int j = 0; j < n; j++) {
                data[offset + j] = (float) row.getDouble(j);
            }
        }
    }

    private static RowDataException nullElement(String column, int i, int j) {
        return new RowDataException("column " + column + " row " + i + " has a null at position " + j);
    }

    private static void copyVector(InternalRow vector, float[] data, int offset, int cols) {
        double[] values = vector.getArray(VEC_VALUES).toDoubleArray();
        if (vector.getByte(VEC_TYPE) == 1) {
            for (int j = 0; j < cols; j++) {
                data[offset + j] = (float) values[j];
            }
        } else {
            int[] indices = vector.getArray(VEC_INDICES).toIntArray();
            for (int j = 0; j < indices.length; j++) {
                data[offset + indices[j]] = (float) values[j];
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

    private static float[] allocate(String column, int rows, int cols) {
        if ((long) rows * cols > Integer.MAX_VALUE - 8) {
            throw new RowDataException("column " + column + " is " + rows + "×" + cols + ", too large for one array");
        }
        return new float[rows * cols];
    }

    /** A decoded row-major matrix. */
    static final class Matrix {
        final int rows;
        final int cols;
        final float[] values;

        Matrix(int rows, int cols, float[] values) {
            this.rows = rows;
            this.cols = cols;
            this.values = values;
        }
    }
}
