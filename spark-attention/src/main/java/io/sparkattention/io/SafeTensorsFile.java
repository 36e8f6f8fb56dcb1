package io.sparkattention.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The bytes of one safetensors file behind a {@link SafeTensors} view: its validated header, where
 * its data section starts, and how to read a tensor's elements from it again. The header is read
 * once, at {@link #open}; each read of elements opens the content afresh and refuses a file whose
 * size has changed since.
 */
final class SafeTensorsFile {

    private final String source;
    private final ByteSource.Opener opener;
    private final long fileSize;
    private final long dataStart;
    private final SafeTensorsHeader header;

    private SafeTensorsFile(String source, ByteSource.Opener opener, long fileSize, long dataStart,
                            SafeTensorsHeader header) {
        this.source = source;
        this.opener = opener;
        this.fileSize = fileSize;
        this.dataStart = dataStart;
        this.header = header;
    }

    /**
     * Reads and validates the header: its length is checked against the content's size and
     * {@link SafeTensors#MAX_HEADER_BYTES} before anything is allocated.
     *
     * @param source how errors name the content
     * @param opener opens the content; called once here and once per read of elements
     * @throws TensorFormatException naming the source when the header breaks a rule of the format
     * @throws IOException when the content cannot be read
     */
    static SafeTensorsFile open(String source, ByteSource.Opener opener) throws IOException {
        try (ByteSource in = opener.open()) {
            long size = in.size();
            if (size < SafeTensors.LENGTH_PREFIX_BYTES) {
                throw new TensorFormatException(source, null, "file has " + size
                    + " bytes, fewer than the 8-byte header length that starts a safetensors file");
            }
            ByteBuffer prefix = ByteBuffer.allocate(SafeTensors.LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
            in.readFully(0, prefix);
            long headerLength = prefix.getLong(0);
            // Unsigned compare: a length with the top bit set is huge, not negative.
            if (Long.compareUnsigned(headerLength, size - SafeTensors.LENGTH_PREFIX_BYTES) > 0) {
                throw new TensorFormatException(source, null, "header length " + Long.toUnsignedString(headerLength)
                    + " exceeds the " + (size - SafeTensors.LENGTH_PREFIX_BYTES) + " bytes that follow it in the file (file size "
                    + size + "); not a safetensors file, or truncated");
            }
            if (headerLength > SafeTensors.MAX_HEADER_BYTES) {
                throw new TensorFormatException(source, null, "header length " + headerLength + " exceeds the limit of "
                    + SafeTensors.MAX_HEADER_BYTES + " bytes (SafeTensors.MAX_HEADER_BYTES)");
            }
            if (headerLength == 0) {
                throw new TensorFormatException(source, null, "header is empty (length 0); it must be a JSON object");
            }
            ByteBuffer headerBytes = ByteBuffer.allocate((int) headerLength);
            in.readFully(SafeTensors.LENGTH_PREFIX_BYTES, headerBytes);
            long dataStart = SafeTensors.LENGTH_PREFIX_BYTES + headerLength;
            SafeTensorsHeader header = SafeTensorsHeader.parse(source, headerBytes.array(), size - dataStart);
            return new SafeTensorsFile(source, opener, size, dataStart, header);
        } catch (EOFException e) {
            throw new TensorFormatException(source, null, "file ended while its header was read (was it truncated?)",
                e);
        } catch (IOException e) {
            throw ByteSource.naming(source, e);
        }
    }

    String source() {
        return source;
    }

    SafeTensorsHeader header() {
        return header;
    }

    /** The tensor's element count as an array length, or an error naming the tensor when it does not fit one. */
    int arrayLength(TensorEntry e) throws TensorFormatException {
        // The header's tiling check bounds every tensor by the bytes the content holds, so an
        // array sized from a header shape never outgrows the input.
        assert dataStart + e.end() <= fileSize && e.end() - e.begin() == e.elementCount() * e.dtype().width()
            : "tensor '" + e.name() + "' is not inside the " + fileSize + " bytes of " + source;
        if (e.elementCount() > SafeTensors.MAX_ARRAY_LENGTH) {
            throw new TensorFormatException(source, e.name(), "has " + e.elementCount() + " elements (shape "
                + Arrays.toString(e.shape()) + "), more than a Java array holds (" + SafeTensors.MAX_ARRAY_LENGTH
                + "); read it in parts with floats(name, fromElement, count)");
        }
        return (int) e.elementCount();
    }

    /** Passes elements {@code [fromElement, fromElement + count)} of {@code e} to {@code visitor}, chunk by chunk. */
    void readElements(TensorEntry e, long fromElement, int count, ElementReader.ChunkVisitor visitor)
        throws IOException {
        int width = e.dtype().width();
        try (ByteSource in = opener.open()) {
            long size = in.size();
            if (size != fileSize) {
                throw new TensorFormatException(source, e.name(), "file size changed from " + fileSize + " to " + size
                    + " bytes since its header was read");
            }
            ElementReader.forEachChunk(in, dataStart + e.begin() + fromElement * width, count, width, visitor);
        } catch (EOFException ex) {
            throw new TensorFormatException(source, e.name(), "file ended inside the tensor's data", ex);
        } catch (IOException ex) {
            throw ByteSource.naming(source, ex);
        }
    }
}
