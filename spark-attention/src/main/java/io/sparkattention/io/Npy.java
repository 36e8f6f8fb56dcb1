package io.sparkattention.io;

import java.io.EOFException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads and writes numpy's {@code .npy} format for little-endian float32 and float64 arrays in C
 * order, the only kind this project exchanges with numpy.
 *
 * <p>The format: the magic {@code \x93NUMPY}, a major and minor version byte, the header length
 * (u16 little-endian in version 1.0, u32 in 2.0 and 3.0), the header — a Python dict literal
 * {@code {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }} padded with spaces and ended
 * by a newline, Latin-1 before 3.0 and UTF-8 in 3.0 — then the raw data. Anything but
 * {@code '<f4'} or {@code '<f8'} in C order is refused with an error naming what was found; sizes
 * are checked against the file's size before any array is allocated.
 */
public final class Npy {

    /**
     * Largest header accepted, in bytes. numpy's own reader refuses more than 10,000 by default;
     * this leaves room while keeping a hostile length harmless.
     */
    public static final int MAX_HEADER_BYTES = 1 << 20;

    /** The six bytes every {@code .npy} file starts with. */
    static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

    /** numpy aligns the data to this many bytes by padding the header. */
    static final int DATA_ALIGNMENT = 64;

    /** Magic, two version bytes and a u16 header length. */
    private static final int PREAMBLE_V1 = 10;
    /** Magic, two version bytes and a u32 header length. */
    private static final int PREAMBLE_V2 = 12;

    private static final Set<String> HEADER_KEYS = Set.of("descr", "fortran_order", "shape");

    private Npy() {
    }

    /**
     * Reads a {@code .npy} file of float32 or float64 values in C order.
     *
     * @param file the file
     * @return the shape, the values as float32, and the stored dtype
     * @throws TensorFormatException naming the file and what was found, when the file is not a
     *     supported {@code .npy} file (magic, version, dtype, order, sizes)
     * @throws IOException when the file cannot be read
     */
    public static NpyArray read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        try (ByteSource in = ByteSource.open(file)) {
            return read(file.toString(), in);
        } catch (IOException e) {
            throw ByteSource.naming(file.toString(), e);
        }
    }

    /**
     * Reads {@code .npy} content already in memory.
     *
     * @param bytes      the file's complete content
     * @param sourceName how error messages name the content
     * @return the shape, the values as float32, and the stored dtype
     * @throws TensorFormatException as {@link #read(Path)} does
     */
    public static NpyArray fromBytes(byte[] bytes, String sourceName) throws TensorFormatException {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sourceName, "sourceName");
        try (ByteSource in = ByteSource.of(bytes)) {
            return read(sourceName, in);
        } catch (TensorFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("in-memory read failed", e);
        }
    }

    private static NpyArray read(String source, ByteSource in) throws IOException {
        long size = in.size();
        if (size < PREAMBLE_V1) {
            throw new TensorFormatException(source, null, "file has " + size + " bytes, too few for a .npy header");
        }
        ByteBuffer preamble = ByteBuffer.allocate((int) Math.min(PREAMBLE_V2, size)).order(ByteOrder.LITTLE_ENDIAN);
        in.readFully(0, preamble);
        byte[] magic = Arrays.copyOf(preamble.array(), MAGIC.length);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new TensorFormatException(source, null, "not a .npy file: it starts with " + hex(magic)
                + " instead of the magic \\x93NUMPY");
        }
        int major = preamble.get(6) & 0xFF;
        int minor = preamble.get(7) & 0xFF;
        int preambleLength;
        long headerLength;
        if (major == 1 && minor == 0) {
            preambleLength = PREAMBLE_V1;
            headerLength = preamble.getShort(8) & 0xFFFFL;
        } else if ((major == 2 || major == 3) && minor == 0) {
            if (size < PREAMBLE_V2) {
                throw new TensorFormatException(source, null, "file has " + size + " bytes, too few for a version "
                    + major + ".0 .npy header");
            }
            preambleLength = PREAMBLE_V2;
            headerLength = preamble.getInt(8) & 0xFFFF_FFFFL;
        } else {
            throw new TensorFormatException(source, null, "unsupported .npy format version " + major + "." + minor
                + " (supported: 1.0, 2.0, 3.0)");
        }
        if (headerLength > size - preambleLength) {
            throw new TensorFormatException(source, null, "header length " + headerLength + " exceeds the "
                + (size - preambleLength) + " bytes that follow it (file size " + size + ")");
        }
        if (headerLength > MAX_HEADER_BYTES) {
            throw new TensorFormatException(source, null, "header length " + headerLength + " exceeds the limit of "
                + MAX_HEADER_BYTES + " bytes (Npy.MAX_HEADER_BYTES)");
        }
        ByteBuffer headerBytes = ByteBuffer.allocate((int) headerLength);
        in.readFully(preambleLength, headerBytes);
        String headerText = decode(source, headerBytes.array(), major);
        Header header = parseHeader(source, headerText);
        long dataStart = preambleLength + headerLength;
        long available = size - dataStart;
        if (available != header.bytes) {
            throw new TensorFormatException(source, null, available < header.bytes
                ? "data has " + available + " bytes, but shape " + Arrays.toString(header.shape) + " of '"
                    + header.descr + "' needs " + header.bytes + " (file truncated?)"
                : "file has " + (available - header.bytes) + " bytes after the data of shape "
                    + Arrays.toString(header.shape));
        }
        DType dtype = header.descr.equals("<f4") ? DType.F32 : DType.F64;
        assert header.count * dtype.width() == available : "the shape's size is checked against the file first";
        float[] data = new float[(int) header.count];
        try {
            ElementReader.forEachChunk(in, dataStart, data.length, dtype.width(),
                (chunk, first, n) -> ElementReader.toFloats(dtype, chunk, data, first, n));
        } catch (EOFException e) {
            throw new TensorFormatException(source, null, "file ended inside its data (changed while being read?)", e);
        }
        return new NpyArray(header.shape, data, header.descr);
    }

    private static String decode(String source, byte[] header, int major) throws TensorFormatException {
        if (major < 3) {
            return new String(header, StandardCharsets.ISO_8859_1);
        }
        return StrictUtf8.decode(source, header, "version 3.0 header");
    }

    /** The checked content of a header. */
    private static final class Header {
        final String descr;
        final long[] shape;
        final long count;
        final long bytes;

        Header(String descr, long[] shape, long count, long bytes) {
            this.descr = descr;
            this.shape = shape;
            this.count = count;
            this.bytes = bytes;
        }
    }

    private static Header parseHeader(String source, String text) throws TensorFormatException {
        Object literal;
        try {
            literal = PythonLiteral.parse(text);
        } catch (IllegalArgumentException e) {
            throw new TensorFormatException(source, null, "header is not a Python dict literal: " + e.getMessage(), e);
        }
        if (!(literal instanceof Map)) {
            throw new TensorFormatException(source, null, "header is not a dict: " + PythonLiteral.repr(literal));
        }
        Map<?, ?> dict = (Map<?, ?>) literal;
        if (!dict.keySet().equals(HEADER_KEYS)) {
            throw new TensorFormatException(source, null, "header keys are " + dict.keySet()
                + ", expected exactly " + HEADER_KEYS);
        }
        Object descr = dict.get("descr");
        Object fortran = dict.get("fortran_order");
        if (!"<f4".equals(descr) && !"<f8".equals(descr)) {
            throw new TensorFormatException(source, null, "dtype descr " + PythonLiteral.repr(descr)
                + (descr instanceof String ? "" : " (a structured dtype)")
                + " is not supported; only '<f4' (float32) and '<f8' (float64), little-endian");
        }
        if (!Boolean.FALSE.equals(fortran)) {
            throw new TensorFormatException(source, null, "fortran_order " + PythonLiteral.repr(fortran)
                + " is not supported: only C order (fortran_order False); save np.ascontiguousarray(a)");
        }
        long[] shape = shape(source, dict.get("shape"));
        long count = 1;
        long bytes;
        try {
            for (long d : shape) {
                count = Math.multiplyExact(count, d);
            }
            bytes = Math.multiplyExact(count, descr.equals("<f4") ? Float.BYTES : Double.BYTES);
        } catch (ArithmeticException e) {
            throw new TensorFormatException(source, null, "shape " + Arrays.toString(shape)
                + " holds more bytes than a 64-bit count can express");
        }
        if (count > SafeTensors.MAX_ARRAY_LENGTH) {
            throw new TensorFormatException(source, null, "shape " + Arrays.toString(shape) + " has " + count
                + " elements, more than a Java array holds (" + SafeTensors.MAX_ARRAY_LENGTH + ")");
        }
        return new Header((String) descr, shape, count, bytes);
    }

    private static long[] shape(String source, Object value) throws TensorFormatException {
        if (!(value instanceof List)) {
            throw new TensorFormatException(source, null, "shape " + PythonLiteral.repr(value) + " is not a tuple");
        }
        List<?> dims = (List<?>) value;
        long[] shape = new long[dims.size()];
        for (int i = 0; i < shape.length; i++) {
            Object d = dims.get(i);
            if (!(d instanceof BigInteger) || ((BigInteger) d).signum() < 0 || ((BigInteger) d).bitLength() > 63) {
                throw new TensorFormatException(source, null, "shape " + PythonLiteral.repr(dims)
                    + " must hold non-negative 64-bit integers, found " + PythonLiteral.repr(d) + " at index " + i);
            }
            shape[i] = ((BigInteger) d).longValue();
        }
        return shape;
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append(String.format("\\x%02x", b & 0xFF));
        }
        return sb.toString();
    }

    /**
     * Writes a float32 array as a {@code .npy} file ({@code '<f4'}, C order) that
     * {@code numpy.load} reads; version 1.0 unless the header needs 2.0. The write is atomic:
     * a temporary file in the same directory is renamed over {@code file}.
     *
     * @param file  the target file; its directory must exist
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @throws IllegalArgumentException when the shape does not match the data
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, float[] data, long... shape) throws IOException {
        Objects.requireNonNull(file, "file");
        Tensor tensor = Tensor.f32(data, shape);
        byte[] preambleAndHeader = preambleAndHeader(shape);
        AtomicFiles.write(file, out -> {
            out.write(preambleAndHeader);
            ByteBuffer chunk = ByteBuffer.allocate(ElementReader.CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            int perChunk = ElementReader.CHUNK_BYTES / Float.BYTES;
            int done = 0;
            while (done < data.length) {
                int n = Math.min(perChunk, data.length - done);
                chunk.clear();
                tensor.encode(done, n, chunk);
                out.write(chunk.array(), 0, chunk.position());
                done += n;
            }
        });
    }

    /** numpy's layout: the header padded with spaces so the data starts 64-byte aligned. */
    static byte[] preambleAndHeader(long[] shape) {
        StringBuilder dims = new StringBuilder("(");
        for (int i = 0; i < shape.length; i++) {
            dims.append(i == 0 ? "" : ", ").append(shape[i]);
        }
        dims.append(shape.length == 1 ? ",)" : ")");
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + dims + ", }";
        int preamble = PREAMBLE_V1;
        int total = alignedTotal(preamble, dict.length());
        if (total - preamble > 0xFFFF) {
            // Version 1.0 stores the header length in a u16.
            preamble = PREAMBLE_V2;
            total = alignedTotal(preamble, dict.length());
        }
        int headerLength = total - preamble;
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) (preamble == PREAMBLE_V1 ? 1 : 2)).put((byte) 0);
        if (preamble == PREAMBLE_V1) {
            out.putShort((short) headerLength);
        } else {
            out.putInt(headerLength);
        }
        out.put(dict.getBytes(StandardCharsets.ISO_8859_1));
        while (out.position() < total - 1) {
            out.put((byte) ' ');
        }
        out.put((byte) '\n');
        return out.array();
    }

    /** Preamble, dict and the closing newline, rounded up to {@link #DATA_ALIGNMENT}. */
    private static int alignedTotal(int preamble, int dictLength) {
        int unpadded = preamble + dictLength + 1;
        return (unpadded + DATA_ALIGNMENT - 1) / DATA_ALIGNMENT * DATA_ALIGNMENT;
    }
}
