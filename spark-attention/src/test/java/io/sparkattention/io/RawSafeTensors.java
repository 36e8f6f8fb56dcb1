package io.sparkattention.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Builds safetensors files byte by byte, including broken ones the writer would never produce. */
final class RawSafeTensors {

    private RawSafeTensors() {
    }

    /** A file with the given header length field, header text and data bytes, written as is. */
    static Path write(Path file, long headerLengthField, String header, byte[] data) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(headerLengthField).put(h).put(data);
        Files.write(file, b.array());
        return file;
    }

    /** A file whose header length field is the header's true length. */
    static Path write(Path file, String header, byte[] data) throws IOException {
        return write(file, header.getBytes(StandardCharsets.UTF_8).length, header, data);
    }

    /** Little-endian 16-bit values. */
    static byte[] shorts(int... values) {
        ByteBuffer b = ByteBuffer.allocate(2 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) {
            b.putShort((short) v);
        }
        return b.array();
    }

    /** Little-endian float32 values. */
    static byte[] floats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return b.array();
    }

    /** One tensor entry: {@code "name":{"dtype":..,"shape":..,"data_offsets":[b,e]}}. */
    static String entry(String name, String dtype, String shape, long begin, long end) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + begin + ","
            + end + "]}";
    }
}
