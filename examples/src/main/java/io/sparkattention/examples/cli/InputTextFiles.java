package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The data files of a text input (JSON lines or CSV) as the driver reads them without Spark, to
 * name a record by its line: a directory's data files in name order ({@link InputFiles}),
 * compressed ones through their codec as Spark reads them, and which of them Spark names in an
 * error.
 */
final class InputTextFiles {

    /** The input as given. */
    final String input;
    /** The data files, in reading order. */
    final List<Path> files;
    private final boolean directory;
    private final FileSystem fs;
    private final CompressionCodecFactory codecs;

    private InputTextFiles(String input, boolean directory, FileSystem fs, List<Path> files,
                           CompressionCodecFactory codecs) {
        this.input = input;
        this.directory = directory;
        this.fs = fs;
        this.files = files;
        this.codecs = codecs;
    }

    /** The input's data files; {@link InputFiles#inspect} has checked them. */
    static InputTextFiles of(String input) {
        Configuration conf = new Configuration();
        try {
            Path p = new Path(input);
            FileSystem fs = p.getFileSystem(conf);
            FileStatus status = fs.getFileStatus(p);
            return new InputTextFiles(input, status.isDirectory(), fs, InputFiles.dataFiles(input, fs, status),
                new CompressionCodecFactory(conf));
        } catch (IOException e) {
            throw new BadInputException("--input " + input + ": " + e.getMessage(), e);
        }
    }

    /** A line's place for messages: "line N", and the file's name first for a directory. */
    String where(Path file, long line) {
        return (directory ? file.getName() + " " : "") + "line " + line;
    }

    /**
     * Whether {@code file}, one of the data files, is the one Spark names {@code sparkPath} (a URI,
     * e.g. {@code file:///...}): the same qualified path, or the one data file of that name; every
     * file is when {@code sparkPath} is null.
     */
    boolean isNamed(Path file, String sparkPath) {
        if (sparkPath == null) {
            return true;
        }
        Path named = new Path(sparkPath);
        return fs.makeQualified(file).equals(fs.makeQualified(named)) || file.getName().equals(named.getName())
            && files.stream().filter(f -> f.getName().equals(named.getName())).count() == 1;
    }

    /** A data file's text, decompressed, as UTF-8. */
    BufferedReader open(Path file) throws IOException {
        CompressionCodec codec = codecs.getCodec(file);
        InputStream raw = fs.open(file);
        return new BufferedReader(new InputStreamReader(codec == null ? raw : codec.createInputStream(raw),
            StandardCharsets.UTF_8));
    }
}
