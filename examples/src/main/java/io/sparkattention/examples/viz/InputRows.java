package io.sparkattention.examples.viz;

import io.sparkattention.examples.cli.BadInputException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Row N of a command-line input (the contract's {@code --input IN}: a JSON-lines file
 * ({@code .json}, {@code .jsonl}), a Parquet file, or a directory of either), in file order.
 *
 * <p>File order is deterministic: a directory's data files are taken in name order (Spark names
 * its part files by partition number, so this is the order the DataFrame was written in), and each
 * file's rows in the order they are stored. Spark itself does not promise this order when it reads
 * several files at once (it packs the largest splits first), so each file is read on its own.
 */
public final class InputRows {

    /** The two input formats of the command-line contract. */
    enum Format { JSON, PARQUET }

    private InputRows() {
    }

    /**
     * Reads one row.
     *
     * @param spark the session
     * @param input a file or a directory of data files
     * @param index the row number, from 0, in file order
     * @return the row, with its schema
     * @throws BadInputException naming the input when it is missing, empty, of an unknown format,
     *                           unreadable, or has no row {@code index}
     */
    public static Row rowAt(SparkSession spark, Path input, long index) {
        return rowAt(spark, input, index, null);
    }

    /**
     * Reads one row, JSON lines files with the schema {@code jsonSchema} gives for each (null:
     * Spark's inference over the whole file).
     *
     * @param jsonSchema the schema of a JSON lines file; an empty one for a file without records
     * @see #rowAt(SparkSession, Path, long)
     */
    public static Row rowAt(SparkSession spark, Path input, long index, Function<Path, StructType> jsonSchema) {
        if (index < 0) {
            throw new BadInputException("--row must be >= 0, got " + index);
        }
        long seen = 0;
        for (Path file : dataFiles(input)) {
            JavaRDD<Row> rows = read(spark, file, jsonSchema);
            Row found = nth(rows, index - seen, file);
            if (found != null) {
                return found;
            }
            seen += rows.count();
        }
        throw new BadInputException("--row " + index + " is out of range: " + input + " has " + seen
            + (seen == 1 ? " row" : " rows") + " (numbered from 0 in file order)");
    }

    /**
     * The data files of {@code input} in reading order; all of one format.
     *
     * @param input a file or a directory
     * @return the files, in name order for a directory
     * @throws BadInputException when there are none, or the formats are mixed or unknown
     */
    public static List<Path> dataFiles(Path input) {
        if (!Files.exists(input)) {
            throw new BadInputException(input + ": no such file or directory");
        }
        if (Files.isRegularFile(input)) {
            if (format(input) == null) {
                throw new BadInputException(input + ": unknown input format (expected .json, .jsonl or .ndjson for "
                    + "JSON lines, optionally .gz, .bz2, .deflate, .lz4 or .snappy, .parquet, or a directory of them)");
            }
            return List.of(input);
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(input)) {
            files = listing.filter(Files::isRegularFile)
                .filter(p -> !hidden(p) && format(p) != null)
                .sorted()
                .collect(Collectors.toList());
        } catch (NoSuchFileException e) {
            throw new BadInputException(input + ": no such file or directory", e);
        } catch (IOException e) {
            throw new BadInputException(input + ": cannot list the directory: " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            throw new BadInputException(input + ": no .json, .jsonl or .parquet files in the directory");
        }
        if (files.stream().map(InputRows::format).distinct().count() > 1) {
            throw new BadInputException(input + ": mixes JSON-lines and Parquet files; give one format per directory");
        }
        return new ArrayList<>(files);
    }

    /** Extensions of the compression codecs Spark reads JSON lines in without Hadoop's native library. */
    private static final List<String> COMPRESSED = List.of(".gz", ".bz2", ".deflate", ".lz4", ".snappy");

    /** The format an input file's name says, or null. */
    static Format format(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".parquet")) {
            return Format.PARQUET;
        }
        // Spark reads JSON lines compressed with these codecs transparently (part-*.json.gz when it writes them).
        for (String codec : COMPRESSED) {
            if (name.endsWith(codec)) {
                name = name.substring(0, name.length() - codec.length());
                break;
            }
        }
        if (name.endsWith(".json") || name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
            return Format.JSON;
        }
        return null;
    }

    /** Spark's markers (_SUCCESS, _committed_*) and checksums (.part-*.crc) are not data. */
    private static boolean hidden(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith("_") || name.startsWith(".");
    }

    /** One file's rows, in storage order. */
    private static JavaRDD<Row> read(SparkSession spark, Path file, Function<Path, StructType> jsonSchema) {
        String path = file.toAbsolutePath().toString();
        try {
            if (format(file) == Format.PARQUET) {
                return spark.read().parquet(path).javaRDD();
            }
            // FAILFAST: a malformed line is an error naming the file, not a row of nulls.
            DataFrameReader reader = spark.read().option("mode", "FAILFAST");
            if (jsonSchema == null) {
                return reader.json(path).javaRDD();
            }
            StructType schema = jsonSchema.apply(file);
            return schema.isEmpty() ? spark.emptyDataFrame().javaRDD() : reader.schema(schema).json(path).javaRDD();
        } catch (BadInputException e) {
            throw e;
        } catch (Exception e) {
            // Spark's AnalysisException is a checked exception that Scala does not declare.
            throw new BadInputException(file + ": cannot read it as " + format(file) + ": " + firstLine(e), e);
        }
    }

    /** Row {@code local} of one file, or null when the file has fewer rows. */
    private static Row nth(JavaRDD<Row> rows, long local, Path file) {
        try {
            // zipWithIndex numbers rows in partition order, which for one file is storage order.
            List<Row> found = rows.zipWithIndex()
                .filter(pair -> pair._2() == local)
                .map(Tuple2::_1)
                .collect();
            return found.isEmpty() ? null : found.get(0);
        } catch (Exception e) {
            throw new BadInputException(file + ": cannot read row " + local + ": " + firstLine(e), e);
        }
    }

    private static String firstLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.toString() : root.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
