package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF0;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple4;
import scala.jdk.javaapi.CollectionConverters;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A table command's progress while it writes: every {@link #INTERVAL_SECONDS} a line with the
 * rows written of the input's total, rows per second over the last minute and the time left at
 * that rate, once a rate is measured ({@link #print}). Rows are counted as they
 * leave the command's last stage, by an accumulator whose values in running tasks reach the
 * driver with the executors' heartbeats ({@link SparkSessions#HEARTBEAT_INTERVAL}), so a long task
 * moves the count too. A task that Spark retries counts its rows again while it runs; its count
 * is dropped when it fails. Heartbeats count only for tasks that have started and not ended, as
 * Spark's own status listener keeps its live tasks: a heartbeat the listener bus delivers after
 * its task's end would otherwise count the task's rows a second time.
 */
final class RowProgress extends SparkListener implements AutoCloseable {

    /** Seconds between two progress lines. */
    static final long INTERVAL_SECONDS = 5;
    /** The rate, and the time left from it, are measured over about this many recent seconds. */
    static final long RATE_WINDOW_SECONDS = 60;

    private final SparkContext sc;
    private final String command;
    private final long total;
    private final PrintStream out;
    private final LongAccumulator rows;
    /**
     * Earlier (time in ns, rows done) samples of the last {@link #RATE_WINDOW_SECONDS}, from the last
     * one that counted no row on, oldest first.
     */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();
    /** Rows of the tasks that ended successfully. */
    private long finished;
    /** Rows so far of each running task (started, not ended), by task id, as its last heartbeat reported them. */
    private final Map<Long, Long> running = new HashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "progress");
        t.setDaemon(true);
        return t;
    });

    private RowProgress(SparkContext sc, String command, long total, PrintStream out) {
        this.sc = sc;
        this.command = command;
        this.total = total;
        this.out = out;
        this.rows = sc.longAccumulator(command + ": rows written");
    }

    /** Starts reporting the progress of {@code command} over {@code total} rows on {@code out}. */
    static RowProgress start(SparkContext sc, String command, long total, PrintStream out) {
        return start(sc, command, total, out, INTERVAL_SECONDS);
    }

    /** {@link #start(SparkContext, String, long, PrintStream)} with a line every {@code seconds}. */
    static RowProgress start(SparkContext sc, String command, long total, PrintStream out, long seconds) {
        RowProgress progress = new RowProgress(sc, command, total, out);
        sc.addSparkListener(progress);
        progress.timer.scheduleAtFixedRate(progress::print, seconds, seconds, TimeUnit.SECONDS);
        return progress;
    }

    /** The rows, counted as they pass (the filter keeps every row). */
    Dataset<Row> counting(Dataset<Row> in) {
        LongAccumulator acc = rows;
        UserDefinedFunction count = functions.udf((UDF0<Boolean>) () -> {
            acc.add(1);
            return true;
        }, DataTypes.BooleanType).asNondeterministic();
        return in.filter(count.apply());
    }

    /** The id of the rows' accumulator, as task updates name it. */
    long accumulatorId() {
        return rows.id();
    }

    /** Rows written by the tasks that succeeded: the final count once the write is done. */
    long written() {
        return rows.value();
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart start) {
        running.put(start.taskInfo().taskId(), 0L);
    }

    @Override
    public synchronized void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate update) {
        for (Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>> task
            : CollectionConverters.asJava(update.accumUpdates())) {
            Long value = valueOf(task._4());
            if (value != null) {
                running.replace((Long) task._1(), value);
            }
        }
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        running.remove(end.taskInfo().taskId());
        if (end.taskInfo().successful()) {
            Long value = valueOf(end.taskInfo().accumulables());
            finished += value == null ? 0 : value;
        }
    }

    /** This run's count among a task's accumulator updates, or null. */
    private Long valueOf(scala.collection.Seq<AccumulableInfo> infos) {
        for (AccumulableInfo info : CollectionConverters.asJava(infos)) {
            if (info.id() == rows.id() && info.update().isDefined()) {
                return ((Number) info.update().get()).longValue();
            }
        }
        return null;
    }

    /** Rows done: those of the tasks that ended, and those the running ones reported. */
    synchronized long done() {
        long n = finished;
        for (long r : running.values()) {
            n += r;
        }
        return Math.min(n, total);
    }

    /**
     * One progress line: rows done of the total, and the rate and time left once a rate is
     * measured: over the recent window, no further back than the last line that counted no row
     * (the start-up before it — Spark's tasks starting, the model shipped — is no rate). Until
     * rows are counted the line says "rate not measured yet".
     */
    void print() {
        long now = System.nanoTime();
        long done = done();
        if (done == 0) {
            samples.clear();
        }
        while (samples.size() > 1 && now - samples.peekFirst()[0] > TimeUnit.SECONDS.toNanos(RATE_WINDOW_SECONDS)) {
            samples.removeFirst();
        }
        long[] first = samples.peekFirst();
        samples.addLast(new long[] {now, done});
        double rate = first == null || done == first[1] ? 0 : (done - first[1]) / ((now - first[0]) / 1e9);
        String measured = done >= total ? ""
            : rate > 0 ? String.format(Locale.ROOT, ", %.1f rows/s, %.0f s left", rate, (total - done) / rate)
            : ", rate not measured yet";
        out.printf(Locale.ROOT, "%s: %,d of %,d rows (%.1f%%)%s%n", command, done, total,
            total == 0 ? 100.0 : 100.0 * done / total, measured);
        out.flush();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        sc.removeSparkListener(this);
    }
}
