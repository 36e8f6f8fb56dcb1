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
import java.util.Arrays;
import java.util.Locale;
import java.util.UUID;

/**
 * Where the command line writes: Spark writes into a hidden temporary sibling of the output,
 * which is renamed to the output only when complete, so a failed run leaves no output behind. An
 * output named {@code *.json}/{@code *.jsonl} is one JSON lines file (the part files, in order,
 * concatenated); any other name is a directory of part files.
 */
final class OutputTarget {

    private static final long IDLE_WAIT_MILLIS = 10_000;

    private final SparkSession spark;
    private final Path output;
    private final String format;
    private final boolean overwrite;
    private final FileSystem fs;
    private final Path temp;

    OutputTarget(SparkSession spark, String output, String format, boolean overwrite) {
        this.spark = spark;
        this.output = new Path(output);
        this.format = format;
        this.overwrite = overwrite;
        try {
            FileSystem fileSystem = this.output.getFileSystem(spark.sparkContext().hadoopConfiguration());
            // The local file system's checksum layer would leave a .crc file next to a single-file output.
            this.fs = fileSystem instanceof LocalFileSystem ? ((LocalFileSystem) fileSystem).getRawFileSystem()
                : fileSystem;
        } catch (IOException e) {
            throw new BadInputException("--output " + output + ": " + e.getMessage(), e);
        }
        Path parent = this.output.getParent() == null ? new Path(".") : this.output.getParent();
        this.temp = new Path(parent, "." + this.output.getName() + ".tmp-" + UUID.randomUUID());
    }

    /** Refuses an existing output unless overwriting: checked before any work is done. */
    void checkWritable() {
        if (exists(output) && !overwrite) {
            throw new BadInputException("--output " + output + " already exists (use --overwrite to replace it)");
        }
    }

    private boolean singleFile() {
        String name = output.getName().toLowerCase(Locale.ROOT);
        return format.equals("json") && (name.endsWith(".json") || name.endsWith(".jsonl"));
    }

    /** Writes the rows; on any failure nothing is left at the output or the temporary path. */
    void write(Dataset<Row> rows) {
        Path file = new Path(temp.getParent(), temp.getName() + ".file");
        boolean done = false;
        try {
            rows.write().format(format).save(temp.toString());
            Path result = temp;
            if (singleFile()) {
                concatenateParts(temp, file);
                fs.delete(temp, true);
                result = file;
            }
            if (exists(output)) {
                fs.delete(output, true);
            }
            if (!fs.rename(result, output)) {
                throw new IOException("cannot rename " + result + " to " + output);
            }
            done = true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (!done) {
                cleanUp(temp, file);
            }
        }
    }

    /** An input without columns (an empty JSON lines file) gives an empty output. */
    void writeEmpty() {
        try {
            if (exists(output)) {
                fs.delete(output, true);
            }
            if (singleFile()) {
                fs.create(output, false).close();
            } else {
                fs.mkdirs(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
