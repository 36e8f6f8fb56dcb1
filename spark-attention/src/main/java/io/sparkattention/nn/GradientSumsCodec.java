package io.sparkattention.nn;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.StreamCorruptedException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link GradientSums} as bytes, for the serializers a step's sums travel through (Spark's
 * shuffle and task results, Kryo's or Java's): the layout's ranges, the slice, the dense values
 * (float64 whole, float32 a slice) and each table's touched rows, the arrays through
 * {@link ArrayStreams} at memory speed. The same sums come back, bit for bit.
 *
 * <pre>
 *   int VERSION, parameterCount, tables; per table: offset, rows, width
 *   int sliceIndex, sliceCount, denseFrom, kind (0: float64 dense, 1: float32 slice), length; the values
 *   per table: int count; count ids; count × width float64 values
 * </pre>
 */
public final class GradientSumsCodec {

    /** The format's version, first on the wire. */
    static final int VERSION = 1;

    private GradientSumsCodec() {
    }

    /**
     * What {@code sums}' slices weigh together on the wire, about: 4 bytes a dense value (float32
     * in a slice), 4 + 8 × width a touched row (its id and float64 values).
     */
    public static long sliceBytes(GradientSums sums) {
        long bytes = 4L * (sums.wire == null ? sums.layout().denseCount : sums.wire.length);
        for (int t = 0; t < sums.sparse.length; t++) {
            bytes += (long) sums.sparse[t].count * (4 + 8L * sums.layout().sparseWidth[t]);
        }
        return bytes;
    }

    /** Writes {@code sums} to {@code out}. */
    public static void write(GradientSums sums, DataOutputStream out) throws IOException {
        GradientLayout layout = sums.layout();
        int tables = layout.sparseOffset.length;
        out.writeInt(VERSION);
        out.writeInt(layout.parameterCount);
        out.writeInt(tables);
        for (int t = 0; t < tables; t++) {
            out.writeInt(layout.sparseOffset[t]);
            out.writeInt(layout.sparseRows[t]);
            out.writeInt(layout.sparseWidth[t]);
        }
        out.writeInt(sums.sliceIndex);
        out.writeInt(sums.sliceCount);
        out.writeInt(sums.denseFrom);
        if (sums.wire == null) {
            double[] dense = sums.whole();
            out.writeInt(0);
            out.writeInt(dense.length);
            ArrayStreams.writeDoubles(out, dense, 0, dense.length);
        } else {
            out.writeInt(1);
            out.writeInt(sums.wire.length);
            ArrayStreams.writeFloats(out, sums.wire, 0, sums.wire.length);
        }
        for (TouchedRows rows : sums.sparse) {
            rows.writeTo(out);
        }
    }

    /** Reads sums {@link #write} wrote. */
    public static GradientSums read(DataInputStream in) throws IOException {
        int version = in.readInt();
        if (version != VERSION) {
            throw new StreamCorruptedException("gradient sums of format " + version + ", expected " + VERSION);
        }
        int parameterCount = in.readInt();
        int tables = in.readInt();
        int[] rows = new int[tables];
        int[] width = new int[tables];
        // The dense ranges around the tables as tensors of their own: the same layout.
        List<ParameterTensor> tensors = new ArrayList<>();
        int[] rowSparse = new int[tables];
        int end = 0;
        for (int t = 0; t < tables; t++) {
            int offset = in.readInt();
            rows[t] = in.readInt();
            width[t] = in.readInt();
            if (offset > end) {
                tensors.add(ParameterTensor.of("dense", end, offset - end));
            }
            rowSparse[t] = tensors.size();
            tensors.add(ParameterTensor.of("table", offset, rows[t], width[t]));
            end = offset + rows[t] * width[t];
        }
        if (parameterCount > end) {
            tensors.add(ParameterTensor.of("dense", end, parameterCount - end));
        }
        GradientLayout layout = new GradientLayout(tensors, rowSparse);
        int sliceIndex = in.readInt();
        int sliceCount = in.readInt();
        int denseFrom = in.readInt();
        int kind = in.readInt();
        int length = in.readInt();
        double[] dense = kind == 0 ? new double[length] : null;
        float[] wire = kind == 0 ? null : new float[length];
        if (kind == 0) {
            ArrayStreams.readDoubles(in, dense, 0, length);
        } else {
            ArrayStreams.readFloats(in, wire, 0, length);
        }
        GradientSums sums = new GradientSums(layout, dense, wire, sliceIndex, sliceCount, denseFrom);
        for (int t = 0; t < tables; t++) {
            sums.sparse[t] = TouchedRows.readFrom(in, rows[t], width[t]);
        }
        return sums;
    }
}
