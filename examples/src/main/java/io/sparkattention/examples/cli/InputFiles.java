package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one discovery of every command's {@code --input}, before Spark starts: its data files and
 * their format. A file's format is its extension's, after a compression codec's that Hadoop reads
 * without its native library (gzip, bzip2, deflate, LZ4, Snappy): JSON lines, CSV with a header,
 * or Parquet; {@code --input-format} names it for files whose names do not. A directory holds files
 * of one format, read in the order of their paths; its subdirectories are Hive partitions
 * ({@code bucket=0/...}, the value kept as a column); its hidden files and those starting with
 * {@code _} (Spark's {@code _SUCCESS}) are not data. The first JSON file's first line must open a
 * JSON object: a JSON array or a pretty-printed document is named as such, not left to Spark's
 * {@code _corrupt_record}.
 */
public final class InputFiles {

    /** The input formats. */
    public enum Format {
        JSON("JSON lines"), CSV("CSV"), PARQUET("Parquet");

        /** The format's name in messages. */
        public final String shown;

        Format(String shown) {
            this.shown = shown;
        }

        /** The name {@code --input-format} takes. */
        public String option() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The JSON lines extensions, before a codec's. */
    private static final List<String> JSON_EXTENSIONS = List.of(".json", ".jsonl", ".ndjson");
    /** Codecs whose Hadoop implementation needs Hadoop's native library, which Spark does not ship. */
    private static final List<String> NATIVE_ONLY = List.of(".zst");
    /** The input formats, in the words of messages and {@code --input}'s help. */
    static final String KNOWN = "JSON lines (.json, .jsonl, .ndjson), CSV with a header (.csv), each optionally "
        + "compressed (.gz, .bz2, .deflate, .lz4, .snappy), or Parquet (.parquet)";
    /** {@code --input}'s help. */
    static final String INPUT_HELP = KNOWN + " file, or a directory of files of one format (subdirectories: Hive "
        + "partitions such as bucket=0/, kept as columns), read in the order of their paths";

    private InputFiles() {
    }

    /**
     * Finds the input's format.
     *
     * @param path  the input as given
     * @param asked the format {@code --input-format} names, null to take it from the file names
     * @throws BadInputException naming the input (and the file) and what is wrong
     */
    static Format inspect(String path, Format asked) {
        Configuration conf = new Configuration();
        try {
            Path p = new Path(path);
            FileSystem fs = p.getFileSystem(conf);
            FileStatus status = status(path, fs);
            List<Path> files = dataFiles(path, fs, status);
            CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
            Format found = null;
            Path first = null;
            for (Path f : files) {
                Format format = asked != null ? asked : format(f, codecs);
                if (found != null && format != found) {
                    throw new BadInputException("--input " + path + ": mixed formats: " + inside(status, first) + " is "
                        + found.shown + ", " + inside(status, f) + " is " + format.shown + "; put the files of each "
                        + "format in a directory of their own");
                }
                found = format;
                first = first == null ? f : first;
            }
            if (found == Format.JSON) {
                checkFirstLine("--input " + shown(files.get(0)), fs, files.get(0), codecs);
            }
            return found;
        } catch (IOException e) {
            throw new BadInputException("--input " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * The data files of an input in reading order (the order of their paths).
     *
     * @throws BadInputException when it is missing, holds no data file, or a file's name says no format
     */
    public static List<Path> dataFiles(String path) {
        Configuration conf = new Configuration();
        try {
            Path p = new Path(path);
            FileSystem fs = p.getFileSystem(conf);
            List<Path> files = dataFiles(path, fs, status(path, fs));
            CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
            files.forEach(f -> format(f, codecs));
            return files;
        } catch (IOException e) {
            throw new BadInputException("--input " + path + ": " + e.getMessage(), e);
        }
    }

    /** The format a data file's name says, after a codec's extension. */
    public static Format format(Path file, CompressionCodecFactory codecs) {
        String name = file.getName();
        String lower = name.toLowerCase(Locale.ROOT);
        if (NATIVE_ONLY.stream().anyMatch(lower::endsWith)) {
            throw new BadInputException("--input " + shown(file) + ": this compression needs Hadoop's native library, "
                + "which this command does not have; decompress it first, or use gzip");
        }
        if (lower.endsWith(".parquet")) {
            return Format.PARQUET;
        }
        CompressionCodec codec = codecs.getCodec(new Path(name));
        String base = codec == null ? lower
            : CompressionCodecFactory.removeSuffix(lower, codec.getDefaultExtension().toLowerCase(Locale.ROOT));
        if (JSON_EXTENSIONS.stream().anyMatch(base::endsWith)) {
            return Format.JSON;
        }
        if (base.endsWith(".csv")) {
            return Format.CSV;
        }
        throw new BadInputException("--input " + shown(file) + " is neither JSON lines nor CSV nor Parquet: expected "
            + KNOWN + ", or --input-format json|csv|parquet");
    }

    private static FileStatus status(String path, FileSystem fs) throws IOException {
        try {
            return fs.getFileStatus(new Path(path));
        } catch (FileNotFoundException e) {
            throw new BadInputException("--input " + path + ": no such file or directory");
        }
    }

    /** A data file's path below the input directory, for messages that name the directory first. */
    private static String inside(FileStatus dir, Path file) {
        String root = dir.getPath().toUri().getPath();
        String f = file.toUri().getPath();
        return f.startsWith(root + "/") ? f.substring(root.length() + 1) : shown(file);
    }

    /** A file's full path for messages: a local path as the file system names it, any other as its URI. */
    static String shown(Path file) {
        return "file".equals(file.toUri().getScheme()) ? file.toUri().getPath() : file.toString();
    }

    /** The input's data files: the file itself, or a directory's (through its Hive partitions) by path. */
    static List<Path> dataFiles(String path, FileSystem fs, FileStatus status) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!status.isDirectory()) {
            files.add(status.getPath());
            return files;
        }
        collect(path, fs, status.getPath(), files);
        if (files.isEmpty()) {
            throw new BadInputException("--input " + path + ": the directory has no data files");
        }
        files.sort(null);
        return files;
    }

    private static void collect(String input, FileSystem fs, Path dir, List<Path> into) throws IOException {
        for (FileStatus f : fs.listStatus(dir)) {
            String name = f.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (f.isFile()) {
                into.add(f.getPath());
            } else if (name.indexOf('=') > 0) {
                collect(input, fs, f.getPath(), into);
            } else {
                throw new BadInputException("--input " + input + ": " + shown(f.getPath()) + " is a directory that is "
                    + "not a Hive partition (name=value); give a directory of data files or of partitions");
            }
        }
    }

    /** The first non-blank line opens a JSON object. */
    private static void checkFirstLine(String where, FileSystem fs, Path file, CompressionCodecFactory codecs)
        throws IOException {
        CompressionCodec codec = codecs.getCodec(file);
        String line;
        try (InputStream raw = fs.open(file);
             BufferedReader reader = new BufferedReader(new InputStreamReader(
                 codec == null ? raw : codec.createInputStream(raw), StandardCharsets.UTF_8))) {
            line = reader.readLine();
            while (line != null && line.isBlank()) {
                line = reader.readLine();
            }
        } catch (IOException | RuntimeException e) {
            throw new BadInputException(where + ": cannot read it"
                + (codec == null ? "" : " as " + codec.getDefaultExtension() + "-compressed data") + " ("
                + ErrorReporting.oneLine(String.valueOf(e.getMessage())) + ")", e);
        }
        if (line == null) {
            return;
        }
        String first = line.strip();
        if (first.startsWith("[")) {
            throw new BadInputException(where + ": expected one JSON object per line (JSON lines), found a JSON array "
                + "(convert it with: jq -c '.[]')");
        }
        if (!first.startsWith("{")) {
            throw new BadInputException(where + ": expected one JSON object per line (JSON lines), found a line "
                + "starting with '" + first.substring(0, Math.min(20, first.length())) + "'");
        }
        if (first.equals("{")) {
            throw new BadInputException(where + ": expected one JSON object per line (JSON lines), found an object "
                + "spread over several lines (write each record on one line, e.g. with jq -c .)");
        }
    }
}
