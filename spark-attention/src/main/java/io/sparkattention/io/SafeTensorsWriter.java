package io.sparkattention.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Writes the {@code safetensors} format as the Python library does, so that
 * {@code safetensors.torch.load_file} reads the result.
 *
 * <p>The format: an unsigned 64-bit little-endian header length N; N bytes of UTF-8 JSON, an object
 * mapping each tensor name to {@code {"dtype", "shape", "data_offsets": [begin, end]}} plus an
 * optional {@code "__metadata__"} object of strings; then the data section, where each tensor's
 * raw little-endian row-major bytes lie at {@code [begin, end)}. The tensors tile the data section
 * with no gap and no overlap. Here tensors are laid out in name order, {@code __metadata__} comes
 * first (omitted when empty) with its keys in order, so equal contents give equal bytes, and
 * the header is padded with spaces to a multiple of {@link #HEADER_ALIGNMENT} bytes so the data
 * section starts aligned.
 */
public final class SafeTensorsWriter {

    /** The header's length is padded to a multiple of this, as the Python library does. */
    public static final int HEADER_ALIGNMENT = 8;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SafeTensorsWriter() {
    }

    /**
     * Writes a safetensors file atomically: to a temporary file in the same directory, forced to
     * disk, then renamed over {@code file}. A failure leaves any previous file untouched.
     *
     * @param file     the target file; its directory must exist
     * @param tensors  the tensors by name; the order of the map does not matter
     * @param metadata string metadata for {@code __metadata__}, or null for none
     * @throws IllegalArgumentException when a name is empty or {@code __metadata__}, or the header
     *     would exceed {@link SafeTensors#MAX_HEADER_BYTES}
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        Objects.requireNonNull(file, "file");
        byte[] header = header(tensors, metadata);
        AtomicFiles.write(file, out -> writeContent(out, header, tensors));
    }

    /**
     * Writes safetensors content to a stream (for example a distributed file system's), which is
     * not closed.
     *
     * @param out      the destination
     * @param tensors  the tensors by name
     * @param metadata string metadata, or null for none
     * @throws IllegalArgumentException as {@link #write(Path, Map, Map)} does
     * @throws IOException when the stream fails
     */
    public static void write(OutputStream out, Map<String, Tensor> tensors, Map<String, String> metadata)
        throws IOException {
        Objects.requireNonNull(out, "out");
        writeContent(out, header(tensors, metadata), tensors);
    }

    /**
     * The safetensors content as a byte array.
     *
     * @param tensors  the tensors by name
     * @param metadata string metadata, or null for none
     * @return the complete file content
     * @throws IllegalArgumentException as {@link #write(Path, Map, Map)} does, or when the content
     *     exceeds the largest Java array
     */
    public static byte[] toBytes(Map<String, Tensor> tensors, Map<String, String> metadata) {
        byte[] header = header(tensors, metadata);
        long total = SafeTensors.LENGTH_PREFIX_BYTES + (long) header.length;
        for (Tensor t : tensors.values()) {
            total += t.byteSize();
        }
        if (total > SafeTensors.MAX_ARRAY_LENGTH) {
            throw new IllegalArgumentException("content of " + total
                + " bytes does not fit a byte array; write to a file");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) total);
        try {
            writeContent(out, header, tensors);
        } catch (IOException e) {
            throw new UncheckedIOException("in-memory write failed", e);
        }
        return out.toByteArray();
    }

    /** The padded JSON header; validates names and metadata. */
    static byte[] header(Map<String, Tensor> tensors, Map<String, String> metadata) {
        Objects.requireNonNull(tensors, "tensors");
        Map<String, Object> json = new LinkedHashMap<>();
        if (metadata != null && !metadata.isEmpty()) {
            Map<String, String> meta = new TreeMap<>();
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                meta.put(Objects.requireNonNull(e.getKey(), "metadata key"),
                    Objects.requireNonNull(e.getValue(), () -> "metadata value of '" + e.getKey() + "'"));
            }
            json.put(SafeTensorsHeader.METADATA_KEY, meta);
        }
        long offset = 0;
        for (Map.Entry<String, Tensor> e : new TreeMap<>(tensors).entrySet()) {
            String name = Objects.requireNonNull(e.getKey(), "tensor name");
            Tensor t = Objects.requireNonNull(e.getValue(), () -> "tensor '" + name + "'");
            if (name.isEmpty() || name.equals(SafeTensorsHeader.METADATA_KEY)) {
                throw new IllegalArgumentException("'" + name + "' cannot be a tensor name");
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("dtype", t.dtype().name());
            entry.put("shape", t.shape());
            entry.put("data_offsets", List.of(offset, offset + t.byteSize()));
            json.put(name, entry);
            offset += t.byteSize();
        }
        byte[] text;
        try {
            text = MAPPER.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("header serialisation failed", e);
        }
        int padded = (text.length + HEADER_ALIGNMENT - 1) / HEADER_ALIGNMENT * HEADER_ALIGNMENT;
        if (padded > SafeTensors.MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("header of " + padded + " bytes exceeds SafeTensors.MAX_HEADER_BYTES ("
                + SafeTensors.MAX_HEADER_BYTES + ")");
        }
        byte[] out = Arrays.copyOf(text, padded);
        Arrays.fill(out, text.length, padded, (byte) ' ');
        return out;
    }

    private static void writeContent(OutputStream out, byte[] header, Map<String, Tensor> tensors) throws IOException {
        ByteBuffer prefix = ByteBuffer.allocate(SafeTensors.LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.write(prefix.putLong(header.length).array());
        out.write(header);
        ByteBuffer chunk = ByteBuffer.allocate(ElementReader.CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (Tensor t : new TreeMap<>(tensors).values()) {
            int perChunk = ElementReader.CHUNK_BYTES / t.dtype().width();
            int done = 0;
            while (done < t.elementCount()) {
                int n = Math.min(perChunk, t.elementCount() - done);
                chunk.clear();
                t.encode(done, n, chunk);
                out.write(chunk.array(), 0, chunk.position());
                done += n;
            }
        }
        out.flush();
    }
}
