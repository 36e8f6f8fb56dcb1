package io.sparkattention.examples.cli;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;

/**
 * Where {@code apply} and {@code sdpa} write: Spark writes into a hidden temporary sibling of the
 * output, which is swapped in only when complete (the earlier output renamed aside, the new one
 * renamed in, the old one deleted), so a failed run leaves the earlier output or nothing. An
 * output named {@code *.json}/{@code *.jsonl} is one JSON lines file (the part files, in order,
 * concatenated); any other name is a directory of part files with Spark's {@code _SUCCESS} and
 * this tool's marker ({@link OutputKind}). Local outputs were checked by {@link OutputGuard}
 * before Spark started; an output on another file system is checked here.
 */
final class OutputTarget {

    private static final long IDLE_WAIT_MILLIS = 10_000;

    private final SparkSession spark;
    private final Path output;
    private final String format;
    private final String command;
    private final FileSystem fs;
    private final Path temp;

    /**
     * @param output  the output, as {@link OutputGuard#check} resolved it for a local path, or as given
     * @param command the command's name, recorded in the marker
     */
    OutputTarget(SparkSession spark, String output, String format, String command) {
        this.spark = spark;
        this.output = new Path(output);
        this.format = format;
        this.command = command;
        try {
            FileSystem fileSystem = this.output.getFileSystem(spark.sparkContext().hadoopConfiguration());
            // The local file system's checksum layer would leave a .crc file next to a single-file output.
            this.fs = fileSystem instanceof LocalFileSystem ? ((LocalFileSystem) fileSystem).getRawFileSystem()
                : fileSystem;
        } catch (IOException e) {
            throw new BadInputException("--output " + output + ": " + e.getMessage(), e);
        }
        this.temp = sibling("tmp");
    }

    /** Whether the output is one JSON lines file, as its name and format say. */
    static boolean singleFile(String output, String format) {
        String name = output.toLowerCase(Locale.ROOT);
        return format.equals("json") && (name.endsWith(".json") || name.endsWith(".jsonl"));
    }

    private Path sibling(String what) {
        return new Path(output.getParent(), "." + output.getName() + "." + what + "-" + UUID.randomUUID());
    }

    /**
     * The checks of {@link OutputGuard} that a remote file system allows: an existing output only
     * with {@code --overwrite}, and only an output directory of this tool.
     */
    void checkRemote(boolean overwrite) {
        if (!exists(output)) {
            return;
        }
        if (!overwrite) {
            throw new BadInputException("--output " + output + " already exists (--overwrite replaces an earlier "
                + "output of spark-attention)");
        }
        if (singleFile(output.toString(), format) || !exists(new Path(output, OutputKind.MARKER))) {
            throw new BadInputException("--output " + output + " exists and is not replaced: it is not an output "
                + "directory of spark-attention (no " + OutputKind.MARKER + " marker file)");
        }
    }

    /** Writes the rows; on any failure the earlier output, or nothing, is left at the output. */
    void write(Dataset<Row> rows) {
        Path file = sibling("tmp");
        boolean done = false;
        try {
            rows.write().format(format).save(temp.toString());
            publish(file);
            done = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (!done) {
                cleanUp(temp, file);
            }
        }
    }

    /** An input without columns (an empty JSON lines file) gives an empty output, published the same way. */
    void writeEmpty() {
        Path file = sibling("tmp");
        try {
            fs.mkdirs(temp);
            fs.create(new Path(temp, OutputKind.SPARK_SUCCESS), false).close();
            publish(file);
        } catch (IOException e) {
            delete(temp, file);
            throw new UncheckedIOException(e);
        }
    }

    /** Turns the written temporary directory into the output: concatenated or marked, then swapped in. */
    private void publish(Path file) throws IOException {
        Path result = temp;
        if (singleFile(output.toString(), format)) {
            concatenateParts(temp, file);
            fs.delete(temp, true);
            result = file;
        } else {
            try (FSDataOutputStream marker = fs.create(new Path(temp, OutputKind.MARKER), false)) {
                marker.write(OutputKind.markerText(command).getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!exists(output)) {
            rename(result, output);
            return;
        }
        Path old = sibling("old");
        rename(output, old);
        try {
            rename(result, output);
        } catch (IOException e) {
            rename(old, output);
            throw e;
        }
        fs.delete(old, true);
    }

    private void rename(Path from, Path to) throws IOException {
        if (!fs.rename(from, to)) {
            throw new IOException("cannot rename " + from + " to " + to);
        }
    }

    private void concatenateParts(Path dir, Path file) throws IOException {
        FileStatus[] parts = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
        Arrays.sort(parts, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
        try (FSDataOutputStream out = fs.create(file, false)) {
            for (FileStatus part : parts) {
                try (InputStream in = fs.open(part.getPath())) {
                    in.transferTo(out);
                }
            }
        }
    }

    /**
     * Removes the temporary paths. Tasks of a failed job that were still running may write into
     * them after the job was aborted, so the removal is repeated once the executors are idle, and
     * registered for exit.
     */
    private void cleanUp(Path... paths) {
        delete(paths);
        waitForIdleExecutors(spark.sparkContext());
        delete(paths);
        for (Path p : paths) {
            try {
                fs.deleteOnExit(p);
            } catch (IOException e) {
                // Best effort: the paths were deleted above.
            }
        }
    }

    private void delete(Path... paths) {
        for (Path p : paths) {
            try {
                fs.delete(p, true);
            } catch (IOException e) {
                // Best effort: the failure being reported matters more.
            }
        }
    }

    private static void waitForIdleExecutors(SparkContext sc) {
        long deadline = System.currentTimeMillis() + IDLE_WAIT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            int running = 0;
            for (SparkExecutorInfo info : sc.statusTracker().getExecutorInfos()) {
                running += info.numRunningTasks();
            }
            if (running == 0 && sc.statusTracker().getActiveStageIds().length == 0) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private boolean exists(Path p) {
        try {
            return fs.exists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
