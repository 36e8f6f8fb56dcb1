package io.sparkattention.examples.cli;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.Success$;
import org.apache.spark.TaskResultLost$;
import org.apache.spark.TaskState;
import org.apache.spark.executor.ExecutorMetrics;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.TaskInfo;
import org.apache.spark.scheduler.TaskLocality;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import scala.Option;
import scala.Tuple2;
import scala.Tuple4;
import scala.jdk.javaapi.CollectionConverters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Progress lines count the rows of tasks still running (their heartbeats) and of the tasks that
 * succeeded: the listener gets Spark's own task start, heartbeat and task end events, built here
 * in the order a run can post them, and each line is printed on demand, so nothing hangs on the
 * clock or the scheduler.
 */
class RowProgressTest {

    private static final Pattern LINE = Pattern.compile(
        "test: ([\\d,]+) of 1,000 rows \\([\\d.]+%\\)(, rate not measured yet|, [\\d.]+ rows/s, \\d+ s left|)");
    /** Task ids far from those of the shared session's real tasks. */
    private static final long TASK = Long.MAX_VALUE - 100;

    @Test
    @DisplayName("running tasks count by their heartbeats, ended ones by their final count; a heartbeat after its "
        + "task's end, a failed task's rows and another accumulator count nothing")
    void countsRunningAndEndedTasks() {
        SparkSession spark = SparkTestSession.get();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
        List<Long> expected = new ArrayList<>();
        // The timer's first line would come after an hour: every line here is print()'s.
        try (RowProgress progress = RowProgress.start(spark.sparkContext(), "test", 1000, out,
            TimeUnit.HOURS.toSeconds(1))) {
            long acc = progress.accumulatorId();
            progress.onTaskStart(new SparkListenerTaskStart(0, 0, task(TASK)));
            progress.onTaskStart(new SparkListenerTaskStart(0, 0, task(TASK + 1)));
            progress.print();
            expected.add(0L);
            progress.onExecutorMetricsUpdate(heartbeat(acc, TASK, 50, TASK + 1, 70));
            progress.print();
            expected.add(120L);
            progress.onTaskEnd(end(acc, TASK, 200, true));
            progress.print();
            expected.add(270L);
            // A heartbeat sent before the task ended, posted after its end: the task stays ended.
            progress.onExecutorMetricsUpdate(heartbeat(acc, TASK, 180, TASK + 1, 90));
            progress.print();
            expected.add(290L);
            progress.onExecutorMetricsUpdate(heartbeat(acc + 1, TASK + 1, 500, TASK + 1, 500));
            progress.print();
            expected.add(290L);
            progress.onTaskEnd(end(acc, TASK + 1, 95, false));
            progress.print();
            expected.add(200L);
            progress.onTaskStart(new SparkListenerTaskStart(0, 1, task(TASK + 2)));
            progress.onTaskEnd(end(acc, TASK + 2, 800, true));
            progress.print();
            expected.add(1000L);
        }
        List<Long> done = captured.toString(StandardCharsets.UTF_8).lines().map(l -> {
            Matcher m = LINE.matcher(l);
            assertTrue(m.matches(), l);
            return Long.parseLong(m.group(1).replace(",", ""));
        }).collect(Collectors.toList());
        assertEquals(expected, done);
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList());
        assertTrue(lines.get(0).endsWith(", rate not measured yet"), "no row counted, no rate: " + lines.get(0));
        assertTrue(lines.get(1).contains(" rows/s, "), "rows counted since the last line: a rate: " + lines.get(1));
        assertTrue(lines.get(lines.size() - 1).endsWith("(100.0%)"), "done: no rate, no time left");
    }

    private static TaskInfo task(long id) {
        return new TaskInfo(id, 0, 0, 0, System.currentTimeMillis(), "driver", "localhost",
            TaskLocality.PROCESS_LOCAL(), false);
    }

    private static scala.collection.immutable.Seq<AccumulableInfo> rows(long accumulator, long value) {
        AccumulableInfo info = new AccumulableInfo(accumulator, Option.apply("rows"), Option.<Object>apply(value),
            Option.empty(), false, false, Option.empty());
        return CollectionConverters.asScala(List.of(info)).toSeq();
    }

    /** One executor's heartbeat: two running tasks' counts of the accumulator. */
    private static SparkListenerExecutorMetricsUpdate heartbeat(long accumulator, long task1, long rows1, long task2,
                                                                long rows2) {
        List<Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>>> tasks = List.of(
            new Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>>(task1, 0, 0,
                rows(accumulator, rows1)),
            new Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>>(task2, 0, 0,
                rows(accumulator, rows2)));
        return new SparkListenerExecutorMetricsUpdate("driver", CollectionConverters.asScala(tasks).toSeq(),
            CollectionConverters.asScala(new HashMap<Tuple2<Object, Object>, ExecutorMetrics>()));
    }

    /** A task's end: succeeded with its final count, or failed. */
    private static SparkListenerTaskEnd end(long accumulator, long id, long rows, boolean success) {
        TaskInfo info = task(id);
        info.setAccumulables(rows(accumulator, rows));
        info.markFinished(success ? TaskState.FINISHED() : TaskState.FAILED(), System.currentTimeMillis());
        return new SparkListenerTaskEnd(0, 0, "ResultTask", success ? Success$.MODULE$ : TaskResultLost$.MODULE$,
            info, new ExecutorMetrics(), null);
    }
}
