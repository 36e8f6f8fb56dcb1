package io.sparkattention.examples.cli;

import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code embed}'s progress on long runs: at most one line per {@link #INTERVAL_NANOS} as tasks
 * finish, with the texts written so far and the tasks done (on stdout: stderr is kept for the
 * one-line error of the command-line contract).
 */
final class EmbedProgress extends SparkListener {

    /** The shortest time between two progress lines: 10 s. */
    static final long INTERVAL_NANOS = 10_000_000_000L;

    private final PrintStream out;
    private final long start = System.nanoTime();
    private final AtomicLong texts = new AtomicLong();
    private final AtomicLong tasks = new AtomicLong();
    private long lastLine = start;

    EmbedProgress(PrintStream out) {
        this.out = out;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() == null || !"Success".equals(end.reason().toString())) {
            return;
        }
        long written = texts.addAndGet(end.taskMetrics().outputMetrics().recordsWritten());
        long done = tasks.incrementAndGet();
        long now = System.nanoTime();
        synchronized (this) {
            if (written == 0 || now - lastLine < INTERVAL_NANOS) {
                return;
            }
            lastLine = now;
        }
        out.printf(Locale.ROOT, "embed: %,d texts written, %d tasks done (%.0f s)%n", written, done,
            (now - start) / 1e9);
        out.flush();
    }
}
