package io.sparkattention.ml;

import io.sparkattention.exec.RowDataException;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.io.Serializable;

/**
 * A mask column — the boolean mask or the additive bias — as its schema describes it: an L×S
 * plane shared by the heads ({@code array<array<t>>}) or one plane per head
 * ({@code array<array<array<t>>>}), with {@code t} boolean, or float/double for the bias.
 * Decoding checks each row's value against the row's L, S and H.
 */
final class PlaneColumn implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Element type of a plane. */
    enum Element { BOOLEAN, FLOAT, DOUBLE }

    final String column;
    final Element element;
    final boolean perHead;

    private PlaneColumn(String column, Element element, boolean perHead) {
        this.column = column;
        this.element = element;
        this.perHead = perHead;
    }

    /** The column as a boolean mask, or null when its type is not one. */
    static PlaneColumn mask(String column, DataType type) {
        return of(column, type, true);
    }

    /** The column as an additive bias, or null when its type is not one. */
    static PlaneColumn bias(String column, DataType type) {
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

    /** Boolean mask of one row, row-major L×S (shared) or H×L×S. */
    boolean[] decodeMask(ArrayData value, int heads, int L, int S) {
        int planes = checkShape(value, heads, L, S);
        boolean[] out = new boolean[planes * L * S];
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
     * Additive bias of one row, L×S or H×L×S. {@code -inf} is a mask and always allowed; NaN and
     * {@code +inf} are rejected unless {@code keepInvalid}.
     */
    float[] decodeBias(ArrayData value, int heads, int L, int S, boolean keepInvalid) {
        int planes = checkShape(value, heads, L, S);
        float[] out = new float[planes * L * S];
        for (int h = 0; h < planes; h++) {
            ArrayData plane = perHead ? value.getArray(h) : value;
            for (int i = 0; i < L; i++) {
                ArrayData row = plane.getArray(i);
                int offset = (h * L + i) * S;
                for (int j = 0; j < S; j++) {
                    checkNotNull(row, j, h, i);
                    float x = element == Element.FLOAT ? row.getFloat(j) : (float) row.getDouble(j);
                    if (!keepInvalid && (Float.isNaN(x) || x == Float.POSITIVE_INFINITY)) {
                        throw new RowDataException("column " + column + where(h, i) + " has " + x + " at position "
                            + j + " (only -Infinity masks a key; handleInvalid=keep lets it propagate)");
                    }
                    out[offset + j] = x;
                }
            }
        }
        return out;
    }

    /** Checks the value is L×S (or H×L×S) and returns the number of planes. */
    private int checkShape(ArrayData value, int heads, int L, int S) {
        int planes = perHead ? heads : 1;
        if (perHead && value.numElements() != heads) {
            throw new RowDataException("column " + column + " has " + value.numElements() + " head planes, expected "
                + heads + " (numHeads)");
        }
        for (int h = 0; h < planes; h++) {
            ArrayData plane = perHead ? (value.isNullAt(h) ? null : value.getArray(h)) : value;
            if (plane == null || plane.numElements() != L) {
                throw new RowDataException("column " + column + (perHead ? " head " + h : "") + " has "
                    + (plane == null ? "null" : plane.numElements() + " rows") + ", expected " + L + " (the query length)");
            }
            for (int i = 0; i < L; i++) {
                int n = plane.isNullAt(i) ? -1 : plane.getArray(i).numElements();
                if (n != S) {
                    throw new RowDataException("column " + column + where(h, i) + " has "
                        + (n < 0 ? "null" : n + " values") + ", expected " + S + " (the key length)");
                }
            }
        }
        return planes;
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
    static DataType weightsType(boolean perHead) {
        return perHead ? DataTypes.createArrayType(MatrixType.OUTPUT, false) : MatrixType.OUTPUT;
    }
}
