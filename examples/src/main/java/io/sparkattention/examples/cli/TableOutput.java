package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.StagedOutput;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A table output ({@code apply}, {@code sdpa}, {@code predict}): an output named
 * {@code *.json}/{@code *.jsonl} is one JSON lines file (Spark's part files, in order,
 * concatenated); any other name is a directory of part files with Spark's {@code _SUCCESS} and
 * this tool's marker ({@link OutputKind}). Written into a {@link StagedOutput}, published by the
 * run's {@link Outputs}.
 */
final class TableOutput {

    /** Values of {@code --output-format}. */
    static final List<String> FORMATS = List.of("json", "parquet");

    private TableOutput() {
    }

    /** The format: the one asked for, else parquet for an output ending in .parquet, json otherwise. */
    static String format(String output, String asked) {
        if (asked == null) {
            return output.toLowerCase(Locale.ROOT).endsWith(".parquet") ? "parquet" : "json";
        }
        return Choices.check("--output-format", asked, FORMATS);
    }

    /** Whether the output is one JSON lines file, as its name and format say. */
    static boolean singleFile(String output, String format) {
        String name = output.toLowerCase(Locale.ROOT);
        return format.equals("json") && (name.endsWith(".json") || name.endsWith(".jsonl"));
    }

    /** What the output is, for the output-safety rule: a JSON lines file with {@code column}, or a directory. */
    static OutputKind kind(String output, String format, String column) {
        return singleFile(output, format) ? OutputKind.jsonLines(column) : OutputKind.sparkDirectory();
    }

    /** Writes the rows into the staged output. */
    static void write(SparkSession spark, Dataset<Row> rows, StagedOutput out, String format) throws IOException {
        write(spark, rows, out, format, null);
    }

    /**
     * Writes the rows into the staged output, a directory of Hive partitions by {@code partitionBy}
     * when not null.
     */
    static void write(SparkSession spark, Dataset<Row> rows, StagedOutput out, String format, String partitionBy)
        throws IOException {
        if (!singleFile(out.given(), format)) {
            var writer = rows.write().format(format);
            (partitionBy == null ? writer : writer.partitionBy(partitionBy)).save(out.uri());
            return;
        }
        String parts = out.scratch("parts");
        rows.write().format(format).save(uriOf(out, parts));
        concatenate(spark, out, parts);
    }

    /** An input without columns (an empty JSON lines file) gives an empty output. */
    static void writeEmpty(SparkSession spark, StagedOutput out, String format) throws IOException {
        FileSystem fs = fileSystem(spark, out);
        if (singleFile(out.given(), format)) {
            fs.create(new Path(uriOf(out, out.path())), false).close();
        } else {
            Path dir = new Path(out.uri());
            fs.mkdirs(dir);
            fs.create(new Path(dir, OutputKind.SPARK_SUCCESS), false).close();
        }
    }

    private static String uriOf(StagedOutput out, String path) {
        return out.isRemote() ? path : java.nio.file.Paths.get(path).toUri().toString();
    }

    private static void concatenate(SparkSession spark, StagedOutput out, String partsDir) throws IOException {
        FileSystem fs = fileSystem(spark, out);
        FileStatus[] parts = fs.listStatus(new Path(uriOf(out, partsDir)), p -> p.getName().startsWith("part-"));
        Arrays.sort(parts, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
        try (FSDataOutputStream file = fs.create(new Path(out.uri()), false)) {
            for (FileStatus part : parts) {
                try (InputStream in = fs.open(part.getPath())) {
                    in.transferTo(file);
                }
            }
        }
    }

    /** The output's file system; the local one without its checksum layer (no .crc beside a file). */
    private static FileSystem fileSystem(SparkSession spark, StagedOutput out) throws IOException {
        FileSystem fs = new Path(out.uri()).getFileSystem(spark.sparkContext().hadoopConfiguration());
        return fs instanceof LocalFileSystem ? ((LocalFileSystem) fs).getRawFileSystem() : fs;
    }
}
