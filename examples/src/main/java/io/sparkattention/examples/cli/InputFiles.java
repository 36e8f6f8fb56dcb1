package io.sparkattention.examples.cli;

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
 * The format of an {@code --input}, found from its files before Spark starts: JSON lines (plain,
 * or compressed with a codec Spark reads: gzip, bzip2, deflate, LZ4, Snappy) or Parquet. A
 * directory holds files of one format; its hidden files and those starting with {@code _} (Spark's
 * {@code _SUCCESS}) are not data. The first JSON file's first line must open a JSON object: a
 * JSON array or a pretty-printed document is named as such, not left to Spark's
 * {@code _corrupt_record}.
 */
final class InputFiles {

    /** The JSON lines extensions, before a codec's. */
    private static final List<String> JSON_EXTENSIONS = List.of(".json", ".jsonl", ".ndjson");
    /** Codecs whose Hadoop implementation needs Hadoop's native library, which Spark does not ship. */
    private static final List<String> NATIVE_ONLY = List.of(".zst");
    /** The input formats, in the words of messages and {@code --input}'s help. */
    static final String KNOWN = "JSON lines (.json, .jsonl, .ndjson, optionally compressed: .gz, .bz2, "
        + ".deflate, .lz4, .snappy) or Parquet (.parquet)";
    /** {@code --input}'s help, before what the command reads from it. */
    static final String INPUT_HELP = KNOWN + " file, or a directory of files of one format";

    private InputFiles() {
    }

    /**
     * Finds the input's format.
     *
     * @param path the input as given
     * @return true for JSON lines, false for Parquet
     * @throws BadInputException naming the input (and the file) and what is wrong
     */
    static boolean inspect(String path) {
        Configuration conf = new Configuration();
        try {
            Path p = new Path(path);
            FileSystem fs = p.getFileSystem(conf);
            FileStatus status;
            try {
                status = fs.getFileStatus(p);
            } catch (FileNotFoundException e) {
                throw new BadInputException("--input " + path + ": no such file or directory");
            }
            List<Path> files = dataFiles(path, fs, status);
            CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
            String prefix = status.isDirectory() ? "--input " + path + ": " : "--input ";
            List<String> json = new ArrayList<>();
            List<String> parquet = new ArrayList<>();
            for (Path f : files) {
                String name = f.getName();
                String lower = name.toLowerCase(Locale.ROOT);
                if (NATIVE_ONLY.stream().anyMatch(lower::endsWith)) {
                    throw new BadInputException(prefix + name + ": this compression needs Hadoop's native library, "
                        + "which this command does not have; decompress it first, or use gzip");
                }
                if (isJson(name, codecs)) {
                    json.add(name);
                } else if (lower.endsWith(".parquet")) {
                    parquet.add(name);
                } else {
                    throw new BadInputException(prefix + name + " is neither " + KNOWN);
                }
            }
            if (!json.isEmpty() && !parquet.isEmpty()) {
                throw new BadInputException("--input " + path + ": mixed formats: " + json.get(0) + " is JSON lines, "
                    + parquet.get(0) + " is Parquet; put the files of each format in a directory of their own");
            }
            if (!json.isEmpty()) {
                checkFirstLine(prefix + (status.isDirectory() ? files.get(0).getName() : path), fs, files.get(0), codecs);
            }
            return !json.isEmpty();
        } catch (IOException e) {
            throw new BadInputException("--input " + path + ": " + e.getMessage(), e);
        }
    }

    /** The input's data files: the file itself, or a directory's in name order. */
    static List<Path> dataFiles(String path, FileSystem fs, FileStatus status) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!status.isDirectory()) {
            files.add(status.getPath());
            return files;
        }
        for (FileStatus f : fs.listStatus(status.getPath())) {
            String name = f.getPath().getName();
            if (name.startsWith("_") || name.startsWith(".")) {
                continue;
            }
            if (!f.isFile()) {
                throw new BadInputException("--input " + path + ": " + name + " is a directory; give a directory of "
                    + "data files (partitioned directories are not read)");
            }
            files.add(f.getPath());
        }
        if (files.isEmpty()) {
            throw new BadInputException("--input " + path + ": the directory has no data files");
        }
        files.sort(null);
        return files;
    }

    /** A JSON lines name, after the extension of a compression codec Hadoop has, if any. */
    private static boolean isJson(String name, CompressionCodecFactory codecs) {
        String n = name;
        CompressionCodec codec = codecs.getCodec(new Path(name));
        if (codec != null) {
            n = CompressionCodecFactory.removeSuffix(name, codec.getDefaultExtension());
        }
        String lower = n.toLowerCase(Locale.ROOT);
        return JSON_EXTENSIONS.stream().anyMatch(lower::endsWith);
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
