package io.sparkattention.nn;

import java.io.Serializable;
import java.util.Arrays;

/**
 * {@link GradientSums}' sums of one row-sparse tensor (an embedding table): a slot per touched row
 * id, the rows' values in slot order, merged by id. What travels ({@link GradientSumsCodec}, or
 * Java serialization and Kryo's field serializer alike) is the ids and values of the touched rows
 * only: the id index is transient and rebuilt on first use.
 */
final class TouchedRows implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final int INITIAL_SLOTS = 16;

    private final int width;
    private final int rows;
    /** slotOf[id] = slot + 1, 0 when the row is untouched; null until first used after deserialization. */
    private transient int[] slotOf;
    private int[] ids = new int[INITIAL_SLOTS];
    private double[] values;
    int count;

    /** No rows yet of a table of {@code rows} rows of {@code width} values. */
    TouchedRows(int rows, int width) {
        this.width = width;
        this.rows = rows;
        this.values = new double[INITIAL_SLOTS * width];
    }

    /** The id index, rebuilt from {@link #ids} when it did not travel. */
    private int[] slots() {
        if (slotOf == null) {
            slotOf = new int[rows];
            for (int k = 0; k < count; k++) {
                slotOf[ids[k]] = k + 1;
            }
        }
        return slotOf;
    }

    /** Writes the touched rows' count, ids and values ({@link GradientSumsCodec}'s format). */
    void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
        out.writeInt(count);
        ArrayStreams.writeInts(out, ids, 0, count);
        ArrayStreams.writeDoubles(out, values, 0, count * width);
    }

    /** Rows {@link #writeTo} wrote, of a table of {@code rows} rows of {@code width} values. */
    static TouchedRows readFrom(java.io.DataInputStream in, int rows, int width) throws java.io.IOException {
        TouchedRows read = new TouchedRows(rows, width);
        read.count = in.readInt();
        read.ids = new int[read.count];
        read.values = new double[read.count * width];
        ArrayStreams.readInts(in, read.ids, 0, read.count);
        ArrayStreams.readDoubles(in, read.values, 0, read.values.length);
        return read;
    }

    /** Drops the arrays' spare capacity. */
    void trim() {
        if (ids.length > count) {
            ids = Arrays.copyOf(ids, count);
            values = Arrays.copyOf(values, count * width);
        }
    }

    /** The values array holding row {@code id}, creating its slot (zeros) when new. */
    double[] row(int id) {
        int[] slotOf = slots();
        if (slotOf[id] == 0) {
            if (count == ids.length) {
                int grown = Math.max(INITIAL_SLOTS, 2 * count);
                ids = Arrays.copyOf(ids, grown);
                values = Arrays.copyOf(values, grown * width);
            }
            ids[count] = id;
            slotOf[id] = ++count;
        }
        return values;
    }

    /** Where row {@code id}'s values start in {@link #row}'s array (the row must exist). */
    int base(int id) {
        return (slots()[id] - 1) * width;
    }

    /** Adds {@code other}'s rows into these, by id, in {@code other}'s slot order. */
    void add(TouchedRows other) {
        for (int k = 0; k < other.count; k++) {
            int id = other.ids[k];
            double[] target = row(id);
            int to = base(id);
            int from = k * width;
            for (int j = 0; j < width; j++) {
                target[to + j] += other.values[from + j];
            }
        }
    }

    /** A copy of the rows whose ids lie in [from, to), in slot order, with no spare capacity. */
    TouchedRows rowsIn(int from, int to) {
        TouchedRows part = new TouchedRows(rows, width);
        int n = 0;
        for (int k = 0; k < count; k++) {
            n += ids[k] >= from && ids[k] < to ? 1 : 0;
        }
        part.ids = new int[n];
        part.values = new double[n * width];
        for (int k = 0; k < count; k++) {
            if (ids[k] >= from && ids[k] < to) {
                System.arraycopy(values, k * width, part.values, part.count * width, width);
                part.ids[part.count++] = ids[k];
            }
        }
        return part;
    }

    /**
     * Writes the rows into {@code out[from, to)}, a window of a flat vector whose table starts at
     * {@code offset} of the window (negative when the table starts before it); the rows' values
     * outside the window are not written.
     */
    void copyInto(double[] out, int offset, int from, int to) {
        for (int k = 0; k < count; k++) {
            int start = offset + ids[k] * width;
            int a = Math.max(from, start), b = Math.min(to, start + width);
            if (a < b) {
                System.arraycopy(values, k * width + a - start, out, a, b - a);
            }
        }
    }
}
