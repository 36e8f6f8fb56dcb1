package io.sparkattention.io;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

import java.io.IOException;
import java.util.Arrays;

/**
 * The values of a repeated numeric field, packed (one length-delimited run) or not (one tag per
 * value), kept as 64-bit patterns: a float's or a double's raw bits, or an integer.
 */
final class ProtobufRepeated {
    /** Reads one value of the field's type. */
    @FunctionalInterface
    interface Element {
        long read(CodedInputStream in) throws IOException;
    }

    static final Element FLOAT = in -> Float.floatToRawIntBits(in.readFloat());
    static final Element DOUBLE = in -> Double.doubleToRawLongBits(in.readDouble());
    static final Element VARINT = CodedInputStream::readInt64;

    private final Element element;
    /** The wire type of one unpacked value. */
    private final int unpackedWire;
    private long[] a = new long[0];
    private int n;

    ProtobufRepeated(Element element, int unpackedWire) {
        this.element = element;
        this.unpackedWire = unpackedWire;
    }

    static ProtobufRepeated ofFloats() {
        return new ProtobufRepeated(FLOAT, WireFormat.WIRETYPE_FIXED32);
    }

    static ProtobufRepeated ofDoubles() {
        return new ProtobufRepeated(DOUBLE, WireFormat.WIRETYPE_FIXED64);
    }

    static ProtobufRepeated ofVarints() {
        return new ProtobufRepeated(VARINT, WireFormat.WIRETYPE_VARINT);
    }

    void read(CodedInputStream in, int wire) throws IOException {
        if (wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            int old = in.pushLimit(in.readRawVarint32());
            while (in.getBytesUntilLimit() > 0) {
                add(element.read(in));
            }
            in.popLimit(old);
        } else if (wire == unpackedWire) {
            add(element.read(in));
        } else {
            throw new InvalidProtocolBufferException("a repeated numeric field has wire type " + wire);
        }
    }

    private void add(long v) {
        if (n == a.length) {
            a = Arrays.copyOf(a, Math.max(8, 2 * n));
        }
        a[n++] = v;
    }

    long[] longs() {
        return Arrays.copyOf(a, n);
    }

    int[] ints() {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = (int) a[i];
        }
        return out;
    }

    float[] floats() {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = Float.intBitsToFloat((int) a[i]);
        }
        return out;
    }

    double[] doubles() {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = Double.longBitsToDouble(a[i]);
        }
        return out;
    }
}
