package io.sparkattention.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A read-only view of a {@code safetensors} file: an 8-byte little-endian header length N, N bytes
 * of JSON header, then the tensors' raw little-endian row-major bytes (see {@link SafeTensorsWriter}
 * for the layout).
 *
 * <p>{@link #read(Path)} reads and validates the header only, and treats it as untrusted:
 * <ul>
 *   <li>N is at most the file size − 8 and at most {@link #MAX_HEADER_BYTES}, checked before
 *       anything is allocated;</li>
 *   <li>the header is UTF-8 JSON, one object, with no duplicate tensor name nor duplicate key;</li>
 *   <li>each entry has a known {@link DType}, a shape of non-negative integers and two
 *       {@code data_offsets} with begin ≤ end, whose span is exactly the shape's product times the
 *       dtype's width (computed without overflow);</li>
 *   <li>the entries, sorted by offset, tile the data section — the N + 8 bytes onward — exactly:
 *       no gap, no overlap, nothing past the end, no trailing bytes;</li>
 *   <li>{@code __metadata__}, when present, maps strings to strings.</li>
 * </ul>
 * Unknown keys inside an entry are ignored, as by the reference implementation. Any violation is a
 * {@link TensorFormatException} naming the file and the tensor.
 *
 * <p>Tensors are read on demand, each by its own short-lived file handle, through a bounded buffer
 * straight into the returned array: a 400 MB tensor costs its array and 1 MB more. An instance is
 * immutable and may be shared between threads. If the file changes size after it was opened, reads
 * fail rather than return other bytes.
 *
 * <pre>{@code
 * SafeTensors st = SafeTensors.read(Path.of("model.safetensors"));
 * long[] shape = st.shape("out_proj.weight");   // e.g. [E, E]
 * float[] w = st.floats("out_proj.weight");     // F32, F64, F16 or BF16, as float32
 * }</pre>
 */
public final class SafeTensors {

    /**
     * Largest header accepted, in bytes (100 MB, the limit of the reference Rust implementation).
     * A header is read whole into memory, so this bounds what a hostile length can make us allocate
     * even in a file that is large enough to hold it.
     */
    public static final long MAX_HEADER_BYTES = 100_000_000L;

    /** Most elements read into one Java array: the JVM's practical array size limit. */
    public static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    /** Size of the little-endian u64 header length that starts every file. */
    static final int LENGTH_PREFIX_BYTES = 8;

    private final SafeTensorsFile file;
    private final String source;
    private final SafeTensorsHeader header;

    private SafeTensors(SafeTensorsFile file) {
        this.file = file;
        this.source = file.source();
        this.header = file.header();
    }

    /**
     * Opens a safetensors file: reads and validates its header; tensors are read later, on demand.
     *
     * @param file the file
     * @return a view of the file's tensors
     * @throws TensorFormatException naming the file (and tensor) when the header breaks a rule of
     *     the format
     * @throws IOException when the file cannot be read
     */
    public static SafeTensors read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        return open(file.toString(), () -> ByteSource.open(file));
    }

    /**
     * Reads safetensors content already in memory, for example fetched from a distributed file
     * system; the array is kept, not copied, and must not change afterwards.
     *
     * @param bytes      the file's complete content
     * @param sourceName how error messages name the content (a path or URI)
     * @return a view of the content's tensors
     * @throws TensorFormatException when the content breaks a rule of the format
     */
    public static SafeTensors fromBytes(byte[] bytes, String sourceName) throws TensorFormatException {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sourceName, "sourceName");
        try {
            return open(sourceName, () -> ByteSource.of(bytes));
        } catch (TensorFormatException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("in-memory read failed", e);
        }
    }

    /**
     * Random-access bytes that a safetensors file is read from when it is not a local file: a
     * distributed file system's stream, for example. {@link #read(String, InputOpener)} opens one
     * to read the header and one per tensor read, and closes each.
     */
    public interface Input extends Closeable {

        /**
         * The content's total size.
         *
         * @return the size in bytes
         * @throws IOException when it cannot be found
         */
        long size() throws IOException;

        /**
         * Fills {@code dst}, from its position to its limit, with the bytes at {@code position}.
         *
         * @param position offset of the first byte to read
         * @param dst      the buffer to fill
         * @throws java.io.EOFException when the content ends first
         * @throws IOException when the read fails
         */
        void readFully(long position, ByteBuffer dst) throws IOException;
    }

    /** Opens a fresh {@link Input} over the same content. */
    @FunctionalInterface
    public interface InputOpener {

        /**
         * Opens the content.
         *
         * @return a new input, closed by the caller
         * @throws IOException when the content cannot be opened
         */
        Input open() throws IOException;
    }

    /**
     * Opens safetensors content that is not a local file (Hadoop's {@code FileSystem}, an object
     * store): reads and validates its header; tensors are read later, on demand, through a fresh
     * input each, exactly as {@link #read(Path)} reads a local file.
     *
     * @param sourceName how error messages name the content (a path or URI)
     * @param opener     opens the content; called once now and once per tensor read
     * @return a view of the content's tensors
     * @throws TensorFormatException naming the source (and tensor) when the header breaks a rule of
     *     the format
     * @throws IOException when the content cannot be read
     */
    public static SafeTensors read(String sourceName, InputOpener opener) throws IOException {
        Objects.requireNonNull(sourceName, "sourceName");
        Objects.requireNonNull(opener, "opener");
        return open(sourceName, () -> ByteSource.of(opener.open()));
    }

    private static SafeTensors open(String source, ByteSource.Opener opener) throws IOException {
        return new SafeTensors(SafeTensorsFile.open(source, opener));
    }

    /**
     * How error messages name this file.
     *
     * @return the path as given to {@link #read(Path)}, or the name given to {@link #fromBytes}
     */
    public String source() {
        return source;
    }

    /**
     * The tensor names, in lexicographic order (the metadata key is not a tensor).
     *
     * @return an unmodifiable list
     */
    public List<String> names() {
        return List.copyOf(header.entries().keySet());
    }

    /**
     * Whether the file holds a tensor of this name.
     *
     * @param name a tensor name
     * @return true when present
     */
    public boolean has(String name) {
        return header.entries().containsKey(name);
    }

    /**
     * The header's {@code __metadata__}; keys in header order.
     *
     * @return an unmodifiable map, empty when the file has no metadata
     */
    public Map<String, String> metadata() {
        return header.metadata();
    }

    /**
     * A tensor's element type.
     *
     * @param name a tensor name
     * @return its dtype
     * @throws TensorFormatException when the file has no such tensor
     */
    public DType dtype(String name) throws TensorFormatException {
        return entry(name).dtype();
    }

    /**
     * A tensor's dimensions, outermost first; a scalar has none.
     *
     * @param name a tensor name
     * @return a fresh copy of the shape
     * @throws TensorFormatException when the file has no such tensor
     */
    public long[] shape(String name) throws TensorFormatException {
        return entry(name).shape().clone();
    }

    /**
     * A tensor's dimensions as ints, for code that indexes Java arrays.
     *
     * @param name a tensor name
     * @return a fresh copy of the shape
     * @throws TensorFormatException when the file has no such tensor, or a dimension exceeds
     *     {@link Integer#MAX_VALUE}
     */
    public int[] intShape(String name) throws TensorFormatException {
        return entry(name).intShape(source);
    }

    /**
     * A tensor's number of elements (the product of its shape; 1 for a scalar).
     *
     * @param name a tensor name
     * @return the element count
     * @throws TensorFormatException when the file has no such tensor
     */
    public long elementCount(String name) throws TensorFormatException {
        return entry(name).elementCount();
    }

    /**
     * Reads a float tensor as float32: F32 as stored, F16 and BF16 widened exactly, F64 rounded to
     * nearest.
     *
     * @param name a tensor name
     * @return its elements, row-major
     * @throws TensorFormatException when the tensor is missing, not of a float dtype, too large for
     *     one array, or its data cannot be read in full
     * @throws IOException when the file cannot be read
     */
    public float[] floats(String name) throws IOException {
        TensorEntry e = floatEntry(name);
        return floats(e, 0, file.arrayLength(e));
    }

    /**
     * Reads {@code count} consecutive elements of a float tensor, starting at flat (row-major)
     * index {@code fromElement}, as {@link #floats(String)} does for the whole tensor. Lets a caller
     * take rows of a tensor, or split one larger than a Java array.
     *
     * @param name        a tensor name
     * @param fromElement flat index of the first element to read
     * @param count       elements to read
     * @return the elements
     * @throws IllegalArgumentException when the range is not inside the tensor
     * @throws TensorFormatException when the tensor is missing, not of a float dtype, or its data
     *     cannot be read in full
     * @throws IOException when the file cannot be read
     */
    public float[] floats(String name, long fromElement, int count) throws IOException {
        TensorEntry e = floatEntry(name);
        if (fromElement < 0 || count < 0 || fromElement > e.elementCount() - count) {
            throw new IllegalArgumentException(source + ": tensor '" + name + "': elements [" + fromElement + ", "
                + (fromElement + count) + ") are not inside its " + e.elementCount() + " elements");
        }
        return floats(e, fromElement, count);
    }

    private float[] floats(TensorEntry e, long fromElement, int count) throws IOException {
        float[] out = new float[count];
        file.readElements(e, fromElement, count,
            (chunk, first, n) -> ElementReader.toFloats(e.dtype(), chunk, out, first, n));
        return out;
    }

    /**
     * Reads a float tensor as float64, exactly (F32, F16 and BF16 widen without rounding), for
     * reference values stored in double precision.
     *
     * @param name a tensor name
     * @return its elements, row-major
     * @throws TensorFormatException when the tensor is missing, not of a float dtype, too large for
     *     one array, or its data cannot be read in full
     * @throws IOException when the file cannot be read
     */
    public double[] doubles(String name) throws IOException {
        TensorEntry e = floatEntry(name);
        double[] out = new double[file.arrayLength(e)];
        file.readElements(e, 0, out.length, (chunk, first, n) -> ElementReader.toDoubles(e.dtype(), chunk, out, first, n));
        return out;
    }

    /**
     * Reads an integer tensor (I8 to I64, U8 to U64) as longs.
     *
     * @param name a tensor name
     * @return its elements, row-major
     * @throws TensorFormatException when the tensor is missing, not of an integer dtype, too large
     *     for one array, holds a U64 value above {@link Long#MAX_VALUE}, or its data cannot be read
     * @throws IOException when the file cannot be read
     */
    public long[] longs(String name) throws IOException {
        TensorEntry e = entry(name).requireDtype(DType::isInteger, source,
            "an integer dtype (I8, U8, I16, U16, I32, U32, I64, U64)");
        long[] out = new long[file.arrayLength(e)];
        file.readElements(e, 0, out.length, (chunk, first, n) -> {
            int bad = ElementReader.toLongs(e.dtype(), chunk, out, first, n);
            if (bad >= 0) {
                throw new TensorFormatException(source, e.name(), "element " + (first + bad)
                    + " exceeds the largest long (" + Long.MAX_VALUE + ")");
            }
        });
        return out;
    }

    /**
     * Reads an integer tensor as ints, refusing values outside the int range; convenient for
     * lengths and indices, which PyTorch stores as I64.
     *
     * @param name a tensor name
     * @return its elements, row-major
     * @throws TensorFormatException as {@link #longs(String)} does, or naming the first element
     *     outside the int range
     * @throws IOException when the file cannot be read
     */
    public int[] ints(String name) throws IOException {
        long[] values = longs(name);
        int[] out = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] != (int) values[i]) {
                throw new TensorFormatException(source, name, "element " + i + " = " + values[i]
                    + " is outside the int range");
            }
            out[i] = (int) values[i];
        }
        return out;
    }

    /**
     * Reads a BOOL tensor.
     *
     * @param name a tensor name
     * @return its elements, row-major
     * @throws TensorFormatException when the tensor is missing, not BOOL, too large for one array,
     *     holds a byte other than 0 or 1, or its data cannot be read in full
     * @throws IOException when the file cannot be read
     */
    public boolean[] booleans(String name) throws IOException {
        TensorEntry e = entry(name).requireDtype(dtype -> dtype == DType.BOOL, source, "BOOL");
        boolean[] out = new boolean[file.arrayLength(e)];
        file.readElements(e, 0, out.length, (chunk, first, n) -> {
            int bad = ElementReader.toBooleans(chunk, out, first, n);
            if (bad >= 0) {
                throw new TensorFormatException(source, e.name(), "element " + (first + bad) + " is byte "
                    + (chunk.get(chunk.position() - 1) & 0xFF) + ", but a BOOL byte must be 0 or 1");
            }
        });
        return out;
    }

    private TensorEntry entry(String name) throws TensorFormatException {
        return header.entry(source, Objects.requireNonNull(name, "name"));
    }

    private TensorEntry floatEntry(String name) throws TensorFormatException {
        return entry(name).requireDtype(DType::isFloat, source, "a float dtype (F32, F64, F16, BF16)");
    }

    /**
     * Names the file and its tensor count.
     *
     * @return a short description
     */
    @Override
    public String toString() {
        return "SafeTensors[" + source + ", " + header.entries().size() + " tensors]";
    }

    /** The tensor names that start with {@code prefix}, in order. */
    List<String> namesStartingWith(String prefix) {
        return header.namesStartingWith(prefix);
    }
}
