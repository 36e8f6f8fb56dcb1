package io.sparkattention.ml;

import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.SparkSession;
import scala.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The persistence of stages that carry data (weights, a tokenizer file): MLlib's params metadata
 * under {@code path/metadata} and the data as files under {@code path/data}, written and read
 * through Hadoop's file system (local, HDFS, S3A...) with the session's Hadoop configuration.
 * {@link #writer} and {@link #reader} are the stages' {@code MLWriter} and {@code MLReader}.
 */
public final class StageData {

    /** The directory of a saved stage that holds its data files. */
    public static final String DATA_DIR = "data";

    private StageData() {
    }

    /** Writes one data file's bytes to a stream. */
    @FunctionalInterface
    public interface Body {
        /** @param out the file's stream (closed by the caller) */
        void write(OutputStream out) throws IOException;
    }

    /** Writes a stage's data files under {@code path/data}, given the session's Hadoop configuration. */
    @FunctionalInterface
    public interface DataWriter {
        void write(String path, Configuration conf) throws IOException;
    }

    /** Builds a stage from its saved uid, reading its data files under {@code path/data}. */
    @FunctionalInterface
    public interface DataReader<T> {
        T read(String uid, String path, Configuration conf) throws IOException;
    }

    /**
     * The Hadoop configuration of the active Spark session (else the default session), or a
     * default one when there is no session: what a stage's factories read model files with.
     */
    public static Configuration hadoopConf() {
        Option<SparkSession> active = SparkSession.getActiveSession();
        if (active.isEmpty()) {
            active = SparkSession.getDefaultSession();
        }
        return active.isDefined() ? active.get().sparkContext().hadoopConfiguration() : new Configuration();
    }

    /** {@code path/data/name}: a saved stage's data file. */
    public static String dataFile(String path, String name) {
        return new Path(new Path(path, DATA_DIR), name).toString();
    }

    /**
     * Creates a file (never replacing one) and writes it.
     *
     * @throws IOException naming the file when it cannot be written
     */
    public static void write(String file, Configuration conf, Body body) throws IOException {
        Path p = new Path(file);
        FileSystem fs = p.getFileSystem(conf);
        try (FSDataOutputStream out = fs.create(p, false)) {
            body.write(out);
        }
    }

    /**
     * A whole small file (a tokenizer.json) as bytes.
     *
     * @throws UncheckedIOException naming the file when it cannot be read
     * @throws IllegalArgumentException naming it when it is a directory
     */
    public static byte[] readBytes(String file, Configuration conf) {
        Path p = new Path(file);
        try {
            FileSystem fs = p.getFileSystem(conf);
            if (fs.getFileStatus(p).isDirectory()) {
                throw new IllegalArgumentException(file + " is a directory, not a file");
            }
            try (FSDataInputStream in = fs.open(p)) {
                return in.readAllBytes();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The writer of a stage: its params as MLlib metadata, then its data.
     *
     * @param stage the stage
     * @param data  writes the data files (see {@link #dataFile})
     */
    public static MLWriter writer(Params stage, DataWriter data) {
        return new MLWriter() {
            @Override
            public void saveImpl(String path) {
                ParamsMetadata.save(stage, path, sparkSession());
                try {
                    data.write(path, sparkSession().sparkContext().hadoopConfiguration());
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot save " + stage.uid() + " to " + path + ": " + e.getMessage(),
                        e);
                }
            }
        };
    }

    /**
     * The reader of a stage saved by {@link #writer}.
     *
     * @param classNames the class names the metadata may name: the stage's, then names it was
     *                   saved under before (so saved pipelines keep loading)
     * @param data       builds the stage from its uid and data; the saved params are set on it
     */
    public static <T extends Params> MLReader<T> reader(List<String> classNames, DataReader<T> data) {
        return new MLReader<>() {
            @Override
            public T load(String path) {
                Configuration conf = sparkSession().sparkContext().hadoopConfiguration();
                return ParamsMetadata.load(path, sparkSession(), classNames, uid -> {
                    try {
                        return data.read(uid, path, conf);
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot load " + path + ": " + e.getMessage(), e);
                    }
                });
            }
        };
    }
}
