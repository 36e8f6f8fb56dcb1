package io.sparkattention.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Streams a run of little-endian elements through one bounded buffer and converts them into a
 * Java array, so that reading a tensor of several hundred MB holds the result array and at most
 * {@link #CHUNK_BYTES} more, never a second full copy.
 */
final class ElementReader {

    /**
     * Bytes read per step. A multiple of 8, so no element of any width straddles two chunks;
     * large enough that the per-read overhead vanishes, small enough to be negligible memory.
     */
    static final int CHUNK_BYTES = 1 << 20;

    /** Receives one chunk of whole elements, positioned at its first byte. */
    @FunctionalInterface
    interface ChunkVisitor {
        /**
         * @param chunk        little-endian bytes of {@code count} elements
         * @param firstElement index, within the run, of the chunk's first element
         * @param count        elements in the chunk
         */
        void visit(ByteBuffer chunk, int firstElement, int count) throws IOException;
    }

    private ElementReader() {
    }

    /** Reads {@code count} elements of {@code width} bytes starting at byte {@code position}. */
    static void forEachChunk(ByteSource source, long position, int count, int width, ChunkVisitor visitor)
        throws IOException {
        if (count == 0) {
            return;
        }
        int perChunk = CHUNK_BYTES / width;
        int bufferBytes = (int) Math.min(CHUNK_BYTES, (long) count * width);
        ByteBuffer buffer = ByteBuffer.allocate(bufferBytes).order(ByteOrder.LITTLE_ENDIAN);
        int done = 0;
        while (done < count) {
            int n = Math.min(perChunk, count - done);
            buffer.clear().limit(n * width);
            source.readFully(position + (long) done * width, buffer);
            buffer.flip();
            visitor.visit(buffer, done, n);
            done += n;
        }
    }

    /** Converts {@code n} elements of a float dtype into {@code dst[off..off+n)}. */
    static void toFloats(DType dtype, ByteBuffer chunk, float[] dst, int off, int n) {
        switch (dtype) {
            case F32:
                chunk.asFloatBuffer().get(dst, off, n);
                break;
            case F64:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = (float) chunk.getDouble();
                }
                break;
            case F16:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = HalfPrecision.halfToFloat(chunk.getShort());
                }
                break;
            case BF16:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = HalfPrecision.bfloat16ToFloat(chunk.getShort());
                }
                break;
            default:
                throw new IllegalStateException("not a float dtype: " + dtype);
        }
    }

    /** Converts {@code n} elements of a float dtype into {@code dst[off..off+n)}, exactly. */
    static void toDoubles(DType dtype, ByteBuffer chunk, double[] dst, int off, int n) {
        switch (dtype) {
            case F64:
                chunk.asDoubleBuffer().get(dst, off, n);
                break;
            case F32:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = chunk.getFloat();
                }
                break;
            case F16:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = HalfPrecision.halfToFloat(chunk.getShort());
                }
                break;
            case BF16:
                for (int i = 0; i < n; i++) {
                    dst[off + i] = HalfPrecision.bfloat16ToFloat(chunk.getShort());
                }
                break;
            default:
                throw new IllegalStateException("not a float dtype: " + dtype);
        }
    }

    /**
     * Converts {@code n} elements of an integer dtype into {@code dst[off..off+n)}.
     *
     * @return the index (within the chunk) of the first U64 value above {@link Long#MAX_VALUE},
     *     or −1 when every value fits
     */
    static int toLongs(DType dtype, ByteBuffer chunk, long[] dst, int off, int n) {
        for (int i = 0; i < n; i++) {
            long v;
            switch (dtype) {
                case I8: v = chunk.get(); break;
                case U8: v = chunk.get() & 0xFFL; break;
                case I16: v = chunk.getShort(); break;
                case U16: v = chunk.getShort() & 0xFFFFL; break;
                case I32: v = chunk.getInt(); break;
                case U32: v = chunk.getInt() & 0xFFFF_FFFFL; break;
                case I64: v = chunk.getLong(); break;
                case U64:
                    v = chunk.getLong();
                    if (v < 0) {
                        return i;
                    }
                    break;
                default:
                    throw new IllegalStateException("not an integer dtype: " + dtype);
            }
            dst[off + i] = v;
        }
        return -1;
    }

    /**
     * Converts {@code n} BOOL bytes into {@code dst[off..off+n)}.
     *
     * @return the index (within the chunk) of the first byte that is neither 0 nor 1, or −1
     */
    static int toBooleans(ByteBuffer chunk, boolean[] dst, int off, int n) {
        for (int i = 0; i < n; i++) {
            byte b = chunk.get();
            if (b != 0 && b != 1) {
                return i;
            }
            dst[off + i] = b == 1;
        }
        return -1;
    }
}
