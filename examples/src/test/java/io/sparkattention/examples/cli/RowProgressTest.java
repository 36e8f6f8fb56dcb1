package io.sparkattention.examples.cli;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Progress lines count the rows of tasks still running (their heartbeats), not only finished tasks. */
class RowProgressTest {

    private static final Pattern LINE = Pattern.compile("test: ([\\d,]+) of 400 rows \\(.*\\), .* rows/s, .* left");

    @Test
    @DisplayName("two tasks of 200 slow rows each: lines every interval, moving before either task ends, then the total")
    void countsRowsInRunningTasks() throws Exception {
        SparkSession spark = SparkTestSession.get();
        Dataset<Row> rows = spark.range(0, 400, 1, 2).map((MapFunction<Long, Long>) i -> {
            Thread.sleep(30);
            return i;
        }, Encoders.LONG()).toDF();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
        long written;
        try (RowProgress progress = RowProgress.start(spark.sparkContext(), "test", 400, out, 1)) {
            progress.counting(rows).write().format("noop").mode("overwrite").save();
            written = progress.written();
        }
        assertEquals(400, written);
        List<Long> done = captured.toString(StandardCharsets.UTF_8).lines().map(l -> {
            Matcher m = LINE.matcher(l);
            assertTrue(m.matches(), l);
            return Long.parseLong(m.group(1).replace(",", ""));
        }).collect(Collectors.toList());
        // Each task takes about 6 s: lines come every second, and some show rows of tasks still running.
        assertTrue(done.size() >= 3, done.toString());
        assertTrue(done.stream().anyMatch(n -> n > 0 && n < 400), "a line between 0 and 400: " + done);
        for (int i = 1; i < done.size(); i++) {
            assertTrue(done.get(i) >= done.get(i - 1), "never backwards: " + done);
        }
    }
}
