package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;

import java.io.Serializable;

/**
 * A mask column — the boolean mask or the additive bias — as its schema describes it: an L×S
 * plane shared by the heads ({@code array<array<t>>}) or one plane per head
 * ({@code array<array<array<t>>>}), with {@code t} boolean, or float/double for the bias.
 * Decoding checks each row's value against the row's L, S and H.
 */
public final class PlaneColumn implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Element type of a plane. */
    enum Element { BOOLEAN, FLOAT, DOUBLE }

    public final String column;
    final Element element;
    final boolean perHead;

    private PlaneColumn(String column, Element element, boolean perHead) {
        this.column = column;
        this.element = element;
        this.perHead = perHead;
    }

    /** The column as a boolean mask, or null when its type is not one. */
    public static PlaneColumn mask(String column, DataType type) {
        return of(column, type, true);
    }

    /** The column as an additive bias, or null when its type is not one. */
    public static PlaneColumn bias(String column, DataType type) {
        return of(column, type, false);
    }

    private static PlaneColumn of(String column, DataType type, boolean booleans) {
        int depth = 0;
        DataType t = type;
        while (t instanceof ArrayType) {
            t = ((ArrayType) t).elementType();
            depth++;
        }
        if (depth != 2 && depth != 3) {
            return null;
        }
        Element e = booleans ? (t.equals(DataTypes.BooleanType) ? Element.BOOLEAN : null)
            : t.equals(DataTypes.FloatType) ? Element.FLOAT : t.equals(DataTypes.DoubleType) ? Element.DOUBLE : null;
        return e == null ? null : new PlaneColumn(column, e, depth == 3);
    }

    /** Boolean mask of one row, row-major L×S (shared) or H×L×S, in a new array. */
    public boolean[] decodeMask(ArrayData value, int heads, int L, int S) {
        return decodeMask(value, heads, L, S, RowBuffers.none());
    }

    /** Boolean mask of one row into {@code buffers}' mask array (reused when its length fits). */
    public boolean[] decodeMask(ArrayData value, int heads, int L, int S, RowBuffers buffers) {
        int planes = checkShape(value, heads, L, S);
        boolean[] out = buffers.booleans(RowBuffers.Slot.MASK, planes * L * S);
        if (value instanceof UnsafeArrayData) {
            UnsafeArrayData v = (UnsafeArrayData) value;
            Object base = v.getBaseObject();
            for (int h = 0; h < planes; h++) {
                long plane = plane(base, v.getBaseOffset(), h);
                for (int i = 0; i < L; i++) {
                    long row = unsafeRow(base, plane, h, i, L, S);
                    // Spark stores a boolean as one byte, 0 or 1, as the JVM does
                    Platform.copyMemory(base, NestedArrays.values(row, S), out,
                        Platform.BOOLEAN_ARRAY_OFFSET + (long) (h * L + i) * S, S);
                }
            }
            return out;
        }
        for (int h = 0; h < planes; h++) {
            ArrayData plane = perHead ? value.getArray(h) : value;
            for (int i = 0; i < L; i++) {
                ArrayData row = plane.getArray(i);
                int offset = (h * L + i) * S;
                for (int j = 0; j < S; j++) {
                    checkNotNull(row, j, h, i);
                    out[offset + j] = row.getBoolean(j);
                }
            }
        }
        return out;
    }

    /**
     * Additive bias of one row, L×S or H×L×S, in a new array. {@code -inf} is a mask and always
     * allowed; NaN and {@code +inf} are rejected unless {@code keepInvalid}.
     */
    public float[] decodeBias(ArrayData value, int heads, int L, int S, boolean keepInvalid) {
        return decodeBias(value, heads, L, S, keepInvalid, RowBuffers.none());
    }

    /** Additive bias of one row into {@code buffers}' bias array (reused when its length fits). */
    public float[] decodeBias(ArrayData value, int heads, int L, int S, boolean keepInvalid, RowBuffers buffers) {
        int planes = checkShape(value, heads, L, S);
        float[] out = buffers.floats(RowBuffers.Slot.BIAS, planes * L * S);
        boolean unsafe = value instanceof UnsafeArrayData;
        Object base = unsafe ? ((UnsafeArrayData) value).getBaseObject() : null;
        for (int h = 0; h < planes; h++) {
            ArrayData plane = unsafe ? null : perHead ? value.getArray(h) : value;
            long unsafePlane = unsafe ? plane(base, ((UnsafeArrayData) value).getBaseOffset(), h) : 0;
            for (int i = 0; i < L; i++) {
                int offset = (h * L + i) * S;
                int hole = unsafe ? copyUnsafeRow(base, unsafePlane, h, i, L, S, out, offset)
                    : copyRow(plane.getArray(i), S, out, offset);
                int end = hole < 0 ? S : hole;
                if (!keepInvalid) {
                    for (int j = 0; j < end; j++) {
                        float x = out[offset + j];
                        if (Float.isNaN(x) || x == Float.POSITIVE_INFINITY) {
                            throw new RowDataException("column " + column + where(h, i) + " has " + x + " at position "
                                + j + " (only -Infinity masks a key; handleInvalid=keep lets it propagate)");
                        }
                    }
                }
                if (hole >= 0) {
                    throw new RowDataException("column " + column + where(h, i) + " has a null at position " + hole);
                }
            }
        }
        return out;
    }

    /** Where plane {@code h} of an unsafe value at {@code top} starts. */
    private long plane(Object base, long top, int h) {
        return perHead ? NestedArrays.element(base, top, NestedArrays.numElements(base, top), h) : top;
    }

    /** Where row {@code i} (checked: S elements) of an unsafe plane starts; throws on a null element. */
    private long unsafeRow(Object base, long plane, int h, int i, int L, int S) {
        long row = NestedArrays.element(base, plane, L, i);
        int hole = NestedArrays.firstNull(base, row, S);
        if (hole >= 0) {
            throw new RowDataException("column " + column + where(h, i) + " has a null at position " + hole);
        }
        return row;
    }

    /** Copies the values before the row's first null (all of them when none); returns that null or -1. */
    private int copyUnsafeRow(Object base, long plane, int h, int i, int L, int S, float[] out, int offset) {
        long row = NestedArrays.element(base, plane, L, i);
        int hole = NestedArrays.firstNull(base, row, S);
        int n = hole < 0 ? S : hole;
        long from = NestedArrays.values(row, S);
        if (element == Element.FLOAT) {
            Platform.copyMemory(base, from, out, Platform.FLOAT_ARRAY_OFFSET + 4L * offset, 4L * n);
        } else {
            for (int j = 0; j < n; j++) {
                out[offset + j] = (float) Platform.getDouble(base, from + 8L * j);
            }
        }
        return hole;
    }

    /** Copies the values before the row's first null (all of them when none); returns that null or -1. */
    private int copyRow(ArrayData row, int S, float[] out, int offset) {
        for (int j = 0; j < S; j++) {
            if (row.isNullAt(j)) {
                return j;
            }
            out[offset + j] = element == Element.FLOAT ? row.getFloat(j) : (float) row.getDouble(j);
        }
        return -1;
    }

    /** Checks the value is L×S (or H×L×S) and returns the number of planes. */
    private int checkShape(ArrayData value, int heads, int L, int S) {
        int planes = perHead ? heads : 1;
        if (perHead && value.numElements() != heads) {
            throw new RowDataException("column " + column + " has " + value.numElements() + " head planes, expected "
                + heads + " (numHeads)");
        }
        if (value instanceof UnsafeArrayData) {
            checkUnsafeShape((UnsafeArrayData) value, planes, L, S);
            return planes;
        }
        for (int h = 0; h < planes; h++) {
            ArrayData plane = perHead ? (value.isNullAt(h) ? null : value.getArray(h)) : value;
            checkRows(h, plane == null ? -1 : plane.numElements(), L);
            for (int i = 0; i < L; i++) {
                checkRow(h, i, plane.isNullAt(i) ? -1 : plane.getArray(i).numElements(), S);
            }
        }
        return planes;
    }

    /** {@link #checkShape} on Spark's binary layout, without an object per plane or row. */
    private void checkUnsafeShape(UnsafeArrayData value, int planes, int L, int S) {
        Object base = value.getBaseObject();
        long top = value.getBaseOffset();
        for (int h = 0; h < planes; h++) {
            boolean nullPlane = perHead && NestedArrays.isNull(base, top, h);
            long plane = nullPlane ? -1 : plane(base, top, h);
            checkRows(h, nullPlane ? -1 : NestedArrays.numElements(base, plane), L);
            for (int i = 0; i < L; i++) {
                checkRow(h, i, NestedArrays.isNull(base, plane, i) ? -1
                    : NestedArrays.numElements(base, NestedArrays.element(base, plane, L, i)), S);
            }
        }
    }

    /** Plane {@code h} has {@code rows} rows (-1: null); L expected. */
    private void checkRows(int h, int rows, int L) {
        if (rows != L) {
            throw new RowDataException("column " + column + (perHead ? " head " + h : "") + " has "
                + (rows < 0 ? "null" : rows + " rows") + ", expected " + L + " (the query length)");
        }
    }

    /** Row {@code i} of plane {@code h} has {@code n} values (-1: null); S expected. */
    private void checkRow(int h, int i, int n, int S) {
        if (n != S) {
            throw new RowDataException("column " + column + where(h, i) + " has "
                + (n < 0 ? "null" : n + " values") + ", expected " + S + " (the key length)");
        }
    }

    private void checkNotNull(ArrayData row, int j, int h, int i) {
        if (row.isNullAt(j)) {
            throw new RowDataException("column " + column + where(h, i) + " has a null at position " + j);
        }
    }

    private String where(int h, int i) {
        return (perHead ? " head " + h : "") + " row " + i;
    }

    /** The Catalyst type of output weights: L×S floats, or H×L×S. */
    public static DataType weightsType(boolean perHead) {
        return perHead ? DataTypes.createArrayType(MatrixType.OUTPUT, false) : MatrixType.OUTPUT;
    }
}
