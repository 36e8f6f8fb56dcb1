package io.sparkattention.ml;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Safetensors files on any Hadoop file system (local, HDFS, S3A, ...): read header-first with
 * positioned reads, one tensor at a time, and written as one stream in bounded chunks, so a model
 * larger than a Java array is never held as one byte array.
 */
public final class HadoopSafeTensors {

    private HadoopSafeTensors() {
    }

    /**
     * Opens a safetensors file.
     *
     * @throws FileNotFoundException naming the path when it does not exist or is a directory
     * @throws io.sparkattention.io.TensorFormatException when the file is not valid safetensors
     */
    public static SafeTensors read(String path, Configuration conf) throws IOException {
        Path p = new Path(path);
        FileSystem fs = p.getFileSystem(conf);
        FileStatus status = fs.getFileStatus(p);
        if (status.isDirectory()) {
            throw new FileNotFoundException(path + " is a directory, not a safetensors file");
        }
        return SafeTensors.read(path, () -> new StreamInput(fs.open(p), fs.getFileStatus(p).getLen()));
    }

    /**
     * Writes a safetensors file, refusing to replace an existing one. On a checksummed file system
     * (Hadoop's local one) the file is written through the raw file system beneath, so no
     * {@code .crc} file is left beside it: the export is the one file a PyTorch user copies.
     */
    public static void write(String path, Map<String, Tensor> tensors, Map<String, String> metadata, Configuration conf)
        throws IOException {
        Path p = new Path(path);
        FileSystem fs = p.getFileSystem(conf);
        if (fs instanceof ChecksumFileSystem) {
            fs = ((ChecksumFileSystem) fs).getRawFileSystem();
        }
        try (FSDataOutputStream out = fs.create(p, false)) {
            SafeTensorsWriter.write(out, tensors, metadata);
        }
    }

    /** A Hadoop stream as a safetensors input: positioned reads, which every Hadoop stream supports. */
    private static final class StreamInput implements SafeTensors.Input {
        private final FSDataInputStream in;
        private final long size;

        StreamInput(FSDataInputStream in, long size) {
            this.in = in;
            this.size = size;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public void readFully(long position, ByteBuffer dst) throws IOException {
            int n = dst.remaining();
            if (dst.hasArray()) {
                in.readFully(position, dst.array(), dst.arrayOffset() + dst.position(), n);
                dst.position(dst.position() + n);
            } else {
                byte[] bytes = new byte[n];
                in.readFully(position, bytes, 0, n);
                dst.put(bytes);
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
