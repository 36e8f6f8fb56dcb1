package io.sparkattention.examples.viz;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.cli.InputFiles;
import io.sparkattention.examples.cli.InputFiles.Format;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Row N of a command-line input (the contract's {@code --input IN}, found as every command finds
 * it: {@link InputFiles}), in file order.
 *
 * <p>File order is deterministic: a directory's data files are taken in the order of their paths
 * (Spark names its part files by partition number, so this is the order the DataFrame was written
 * in), and each file's rows in the order they are stored. Spark itself does not promise this order when it reads
 * several files at once (it packs the largest splits first), so each file is read on its own.
 */
public final class InputRows {

    /** Hadoop's compression codecs, by which a file's name says its format. */
    private static final CompressionCodecFactory CODECS = new CompressionCodecFactory(new Configuration());

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
     * The data files of {@code input} in reading order, as every command discovers them
     * ({@link InputFiles}): the order of their paths, through Hive partitions.
     *
     * @param input a local file or directory
     * @return the files
     * @throws BadInputException when there are none, or a file's name says no format
     */
    public static List<Path> dataFiles(Path input) {
        List<Path> files = new ArrayList<>();
        for (org.apache.hadoop.fs.Path f : InputFiles.dataFiles(input.toString())) {
            files.add(Paths.get(f.toUri()));
        }
        Format first = format(files.get(0));
        for (Path f : files) {
            if (format(f) != first) {
                throw new BadInputException("--input " + input + ": mixed formats: " + files.get(0) + " is "
                    + first.shown + ", " + f + " is " + format(f).shown + "; give one format per directory");
            }
        }
        return files;
    }

    /** The format a local input file's name says. */
    static Format format(Path file) {
        return InputFiles.format(new org.apache.hadoop.fs.Path(file.toUri()), CODECS);
    }

    /** One file's rows, in storage order. */
    private static JavaRDD<Row> read(SparkSession spark, Path file, Function<Path, StructType> jsonSchema) {
        String path = file.toAbsolutePath().toString();
        try {
            if (format(file) == Format.PARQUET) {
                return spark.read().parquet(path).javaRDD();
            }
            if (format(file) == Format.CSV) {
                return spark.read().option("header", true).option("mode", "FAILFAST").csv(path).javaRDD();
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
