package io.sparkattention.rows;

import io.sparkattention.kernel.NonFinite;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;

/**
 * A flat sequence column: one {@code array<float>} (or {@code array<double>}) of L·W values per
 * row, position {@code i}'s W values at {@code [i·W, (i+1)·W)} — the row-major matrix itself. One
 * array per row instead of L; a float row from Parquet or the cache decodes with a single copy.
 */
public final class FlatSequence implements SequenceDecoder {

    private static final long serialVersionUID = 1L;

    /** The Catalyst type of flat outputs. */
    public static final DataType OUTPUT = DataTypes.createArrayType(DataTypes.FloatType, false);

    private final boolean doubles;
    private final int width;

    private FlatSequence(boolean doubles, int width) {
        this.doubles = doubles;
        this.width = width;
    }

    /** Whether {@code type} is a flat sequence type: {@code array<float>} or {@code array<double>}. */
    public static boolean isFlat(DataType type) {
        if (!(type instanceof ArrayType)) {
            return false;
        }
        DataType element = ((ArrayType) type).elementType();
        return element.equals(DataTypes.FloatType) || element.equals(DataTypes.DoubleType);
    }

    /** The decoder of a flat column of {@code type} with {@code width} values per position (≥ 1). */
    public static FlatSequence of(DataType type, int width) {
        if (!isFlat(type) || width < 1) {
            throw new IllegalArgumentException("not a flat sequence: " + type.simpleString() + " of width " + width);
        }
        return new FlatSequence(((ArrayType) type).elementType().equals(DataTypes.DoubleType), width);
    }

    @Override
    public int fixedWidth() {
        return width;
    }

    @Override
    public MatrixType.Matrix decode(ArrayData value, String column, boolean finite, String hint, RowBuffers buffers,
                                    RowBuffers.Slot slot) {
        int n = value.numElements();
        if (n % width != 0) {
            throw new RowDataException("column " + column + " has " + n + " values, not a multiple of its width "
                + width + " (the values per position)");
        }
        float[] data = buffers.floats(slot, n);
        if (value instanceof UnsafeArrayData && !doubles) {
            UnsafeArrayData unsafe = (UnsafeArrayData) value;
            checkNoNulls(unsafe, n, column);
            long header = UnsafeArrayData.calculateHeaderPortionInBytes(n);
            Platform.copyMemory(unsafe.getBaseObject(), unsafe.getBaseOffset() + header, data,
                Platform.FLOAT_ARRAY_OFFSET, 4L * n);
        } else {
            for (int j = 0; j < n; j++) {
                if (value.isNullAt(j)) {
                    throw nullAt(column, j);
                }
                data[j] = doubles ? (float) value.getDouble(j) : value.getFloat(j);
            }
        }
        if (finite) {
            int bad = NonFinite.first(data, 0, n);
            if (bad >= 0) {
                throw new RowDataException("column " + column + " has " + data[bad] + " at position " + bad / width
                    + ", value " + bad % width + hint);
            }
        }
        return new MatrixType.Matrix(n / width, width, data);
    }

    /** Scans the null bits a 64-bit word at a time; reports the first null. */
    private void checkNoNulls(UnsafeArrayData value, int n, String column) {
        Object base = value.getBaseObject();
        long end = value.getBaseOffset() + UnsafeArrayData.calculateHeaderPortionInBytes(n);
        for (long word = value.getBaseOffset() + 8; word < end; word += 8) {
            if (Platform.getLong(base, word) != 0) {
                for (int j = 0; j < n; j++) {
                    if (value.isNullAt(j)) {
                        throw nullAt(column, j);
                    }
                }
            }
        }
    }

    private RowDataException nullAt(String column, int j) {
        return new RowDataException("column " + column + " has a null at position " + j / width + ", value "
            + j % width);
    }

    /** {@code count} values of {@code values} from {@code offset} as one flat Catalyst array (one copy). */
    public static ArrayData encode(float[] values, int offset, int count) {
        return UnsafeArrayData.fromPrimitiveArray(values, (int) (Platform.FLOAT_ARRAY_OFFSET + 4L * offset), count, 4);
    }
}
