package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.unsafe.Platform;

/**
 * Spark's binary layout of nested arrays ({@link UnsafeArrayData}), read and written in place.
 *
 * <p>An array of {@code n} elements is, in 8-byte little-endian words:
 * <pre>
 *   numElements                      1 word
 *   null bits, bit i = element i     ceil(n/64) words
 *   fixed part                       n·elementSize bytes, zero-padded to a whole word
 *   variable part                    nested arrays, each starting on a word
 * </pre>
 * For primitive elements (float: 4 bytes, double: 8, boolean: 1) the fixed part holds the values.
 * For array elements it holds one word per element, {@code (offset << 32) | size}, the offset in
 * bytes from the start of the outer array; the nested arrays follow in element order. The
 * writers produce the bytes Spark's own {@code UnsafeArrayWriter} produces, so a projection
 * copies such a value with one {@code memcpy} instead of rewriting every inner array.
 *
 * <p>Positions below are absolute ({@code base} object plus byte offset, as {@link Platform}
 * takes them). The readers walk an outer array's offset words without creating an
 * {@code UnsafeArrayData} per element and trust the layout, as Spark's own accessors do.
 */
public final class NestedArrays {

    /** Bytes of one element of the fixed part of an array of arrays. */
    private static final int SLOT_BYTES = 8;
    /** The largest array Spark accepts (its {@code ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH}). */
    private static final long MAX_BYTES = Integer.MAX_VALUE - 15;

    private NestedArrays() {
    }

    // ---- reading --------------------------------------------------------------------------------

    /** The element count of the array at {@code array}. */
    static int numElements(Object base, long array) {
        return (int) Platform.getLong(base, array);
    }

    /** Whether element {@code i} of the array at {@code array} is null. */
    static boolean isNull(Object base, long array, int i) {
        return (Platform.getLong(base, array + 8 + ((long) (i >>> 6) << 3)) & (1L << (i & 63))) != 0;
    }

    /** The first null element of the array at {@code array} of {@code n} elements, or -1. */
    static int firstNull(Object base, long array, int n) {
        for (int w = 0, words = (n + 63) >>> 6; w < words; w++) {
            long bits = Platform.getLong(base, array + 8 + 8L * w);
            if (bits != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(bits);
            }
        }
        return -1;
    }

    /** Where element {@code i} (not null) of the array of {@code n} arrays at {@code array} starts. */
    static long element(Object base, long array, int n, int i) {
        long slot = Platform.getLong(base, array + UnsafeArrayData.calculateHeaderPortionInBytes(n) + (long) SLOT_BYTES * i);
        return array + (slot >>> 32);
    }

    /** Where the values of the primitive array of {@code n} elements at {@code array} start. */
    static long values(long array, int n) {
        return array + UnsafeArrayData.calculateHeaderPortionInBytes(n);
    }

    // ---- writing --------------------------------------------------------------------------------

    /** {@code rows×cols} floats starting at {@code offset}, row-major, as one {@code array<array<float>>}. */
    public static UnsafeArrayData matrix(float[] values, int offset, int rows, int cols) {
        long size = matrixBytes(rows, cols);
        byte[] out = allocate(size, rows + "×" + cols);
        writeMatrix(values, offset, rows, cols, out, Platform.BYTE_ARRAY_OFFSET);
        return wrap(out);
    }

    /** {@code planes×rows×cols} floats, row-major, as one {@code array<array<array<float>>>}. */
    public static UnsafeArrayData planes(float[] values, int planes, int rows, int cols) {
        long matrix = matrixBytes(rows, cols);
        long size = arrayOfArraysHeader(planes) + planes * matrix;
        byte[] out = allocate(size, planes + "×" + rows + "×" + cols);
        long start = Platform.BYTE_ARRAY_OFFSET;
        Platform.putLong(out, start, planes);
        long slots = start + UnsafeArrayData.calculateHeaderPortionInBytes(planes);
        long cursor = arrayOfArraysHeader(planes);
        for (int p = 0; p < planes; p++) {
            Platform.putLong(out, slots + (long) SLOT_BYTES * p, (cursor << 32) | matrix);
            writeMatrix(values, p * rows * cols, rows, cols, out, start + cursor);
            cursor += matrix;
        }
        return wrap(out);
    }

    /** Writes one matrix at {@code start} of a zeroed {@code out}: header, offset words, then its rows. */
    private static void writeMatrix(float[] values, int offset, int rows, int cols, byte[] out, long start) {
        long row = floatArrayBytes(cols);
        long header = UnsafeArrayData.calculateHeaderPortionInBytes(cols);
        Platform.putLong(out, start, rows);
        long slots = start + UnsafeArrayData.calculateHeaderPortionInBytes(rows);
        long cursor = arrayOfArraysHeader(rows);
        for (int i = 0; i < rows; i++) {
            Platform.putLong(out, slots + (long) SLOT_BYTES * i, (cursor << 32) | row);
            long at = start + cursor;
            Platform.putLong(out, at, cols);
            Platform.copyMemory(values, Platform.FLOAT_ARRAY_OFFSET + 4L * (offset + (long) i * cols), out,
                at + header, 4L * cols);
            cursor += row;
        }
    }

    private static byte[] allocate(long size, String shape) {
        if (size > MAX_BYTES) {
            throw new RowDataException("an output of " + shape + " floats is too large for one Spark array");
        }
        return new byte[(int) size];
    }

    private static UnsafeArrayData wrap(byte[] bytes) {
        UnsafeArrayData out = new UnsafeArrayData();
        out.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
        return out;
    }

    /** Bytes of a {@code rows×cols} matrix. */
    private static long matrixBytes(int rows, int cols) {
        return arrayOfArraysHeader(rows) + rows * floatArrayBytes(cols);
    }

    /** Bytes of an array of {@code n} arrays before its first nested array. */
    private static long arrayOfArraysHeader(int n) {
        return UnsafeArrayData.calculateHeaderPortionInBytes(n) + (long) SLOT_BYTES * n;
    }

    /** Bytes of an array of {@code n} floats. */
    private static long floatArrayBytes(int n) {
        return UnsafeArrayData.calculateHeaderPortionInBytes(n) + ((4L * n + 7) & ~7L);
    }
}
