package io.sparkattention.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Random-access reads from a file or an in-memory copy of one; the readers never need more.
 * Positional reads keep one open source safe to share by the chunks of one tensor.
 */
abstract class ByteSource implements Closeable {

    /** Opens a fresh source; readers open one per tensor, so no file handle outlives a read. */
    @FunctionalInterface
    interface Opener {
        ByteSource open() throws IOException;
    }

    /** Total size in bytes. */
    abstract long size() throws IOException;

    /**
     * Fills {@code dst} from its position to its limit with the bytes at {@code position}.
     *
     * @throws EOFException when the source ends first
     */
    abstract void readFully(long position, ByteBuffer dst) throws IOException;

    /**
     * An I/O failure that names the source: file-system exceptions and format exceptions already
     * do; others (a read error such as "Is a directory") get the source's name in front.
     */
    static IOException naming(String source, IOException e) {
        if (e instanceof TensorFormatException || e instanceof FileSystemException) {
            return e;
        }
        return new IOException(source + ": " + e.getMessage(), e);
    }

    static ByteSource open(Path file) throws IOException {
        return new FileSource(FileChannel.open(file, StandardOpenOption.READ));
    }

    static ByteSource of(byte[] bytes) {
        return new ArraySource(bytes);
    }

    static ByteSource of(SafeTensors.Input input) {
        return new InputSource(input);
    }

    /** A caller's {@link SafeTensors.Input} (a distributed file system's stream, for example). */
    private static final class InputSource extends ByteSource {
        private final SafeTensors.Input input;

        InputSource(SafeTensors.Input input) {
            this.input = Objects.requireNonNull(input, "input");
        }

        @Override
        long size() throws IOException {
            return input.size();
        }

        @Override
        void readFully(long position, ByteBuffer dst) throws IOException {
            input.readFully(position, dst);
        }

        @Override
        public void close() throws IOException {
            input.close();
        }
    }

    private static final class FileSource extends ByteSource {
        private final FileChannel channel;

        FileSource(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        long size() throws IOException {
            return channel.size();
        }

        @Override
        void readFully(long position, ByteBuffer dst) throws IOException {
            long at = position;
            while (dst.hasRemaining()) {
                int n = channel.read(dst, at);
                if (n < 0) {
                    throw new EOFException("end of file at byte " + at);
                }
                at += n;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    private static final class ArraySource extends ByteSource {
        private final byte[] bytes;

        ArraySource(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        long size() {
            return bytes.length;
        }

        @Override
        void readFully(long position, ByteBuffer dst) throws IOException {
            if (position < 0 || position > bytes.length - (long) dst.remaining()) {
                throw new EOFException("end of data at byte " + bytes.length);
            }
            dst.put(bytes, (int) position, dst.remaining());
        }

        @Override
        public void close() {
            // Nothing to release: the array belongs to the caller.
        }
    }
}
