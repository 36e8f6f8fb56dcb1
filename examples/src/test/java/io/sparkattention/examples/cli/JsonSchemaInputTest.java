package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.testing.Fixtures;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JSON lines read with the schema the command declares: no pass over the whole input to infer
 * one, empty sequences as empty matrices, the columns the command does not know carried through
 * with their values, per-head or shared planes as the first non-empty value says, and a value of
 * another kind or depth named by its column and line, in the sampled lines or after them.
 */
class JsonSchemaInputTest {

    /** Spark's split size: small, for inputs of several partitions. */
    private static final String SPLIT = "spark.sql.files.maxPartitionBytes";
    private static final String WEIGHTS = Fixtures.path("mha_self_basic").toString();  // E = 16, 4 heads

    @TempDir
    Path dir;

    private Cli.Result sdpa(Path in, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", in.toString(), "--output", out.toString(),
            "--master", Cli.MASTER));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    private Cli.Result apply(Path in, Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of("apply", "--weights", WEIGHTS, "--prefix", "state_dict.",
            "--num-heads", "4", "--input", in.toString(), "--output", out.toString(), "--master", Cli.MASTER));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    /** An L×w matrix of seeded values in [-1, 1), as JSON. */
    private static String matrix(Random random, int rows, int width) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < rows; i++) {
            s.append(i == 0 ? "[" : ",[");
            for (int j = 0; j < width; j++) {
                s.append(j == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.4f", 2 * random.nextDouble() - 1));
            }
            s.append(']');
        }
        return s.append(']').toString();
    }

    private Path write(String name, List<String> lines) throws IOException {
        return Files.write(dir.resolve(name), lines);
    }

    private static void assertBad(Cli.Result result, String expected) {
        assertEquals(2, result.exitCode, result.toString());
        assertEquals(List.of(expected), result.errorLines());
    }

    @Test
    @DisplayName("an input whose every query is [] gives an empty attn_output per row through apply and sdpa")
    void allQueriesEmpty() throws IOException {
        Path in = write("empty.jsonl", List.of("{\"id\":0,\"query\":[]}", "{\"id\":1,\"query\":[]}"));
        for (String command : List.of("apply", "sdpa")) {
            Path out = dir.resolve(command + "-out.jsonl");
            Cli.Result result = command.equals("apply") ? apply(in, out, "--need-weights") : sdpa(in, out);
            assertEquals(0, result.exitCode, command + ": " + result);
            List<JsonNode> rows = Cli.readJsonLines(out);
            assertEquals(2, rows.size(), command);
            for (int i = 0; i < 2; i++) {
                assertEquals(i, rows.get(i).get("id").asInt(), command);
                assertEquals(0, rows.get(i).get("attn_output").size(), command + " row " + i);
            }
        }
    }

    @Test
    @DisplayName("rows with L = 0 among others give empty outputs there and the others' numbers unchanged")
    void emptyRowsAmongOthers() throws IOException {
        Random random = new Random(23);
        String a = matrix(random, 3, 16), b = matrix(random, 5, 16);
        Path mixed = write("mixed.jsonl", List.of("{\"query\":[]}", "{\"query\":" + a + "}", "{\"query\":[]}",
            "{\"query\":" + b + "}"));
        Path full = write("full.jsonl", List.of("{\"query\":" + a + "}", "{\"query\":" + b + "}"));
        for (String command : List.of("apply", "sdpa")) {
            Path mixedOut = dir.resolve(command + "-mixed.jsonl"), fullOut = dir.resolve(command + "-full.jsonl");
            String[] heads = command.equals("sdpa") ? new String[] {"--num-heads", "4"} : new String[0];
            assertEquals(0, (command.equals("apply") ? apply(mixed, mixedOut) : sdpa(mixed, mixedOut, heads)).exitCode);
            assertEquals(0, (command.equals("apply") ? apply(full, fullOut) : sdpa(full, fullOut, heads)).exitCode);
            List<JsonNode> got = Cli.readJsonLines(mixedOut), want = Cli.readJsonLines(fullOut);
            assertEquals(0, got.get(0).get("attn_output").size(), command);
            assertEquals(0, got.get(2).get("attn_output").size(), command);
            assertEquals(want.get(0).get("attn_output"), got.get(1).get("attn_output"), command);
            assertEquals(want.get(1).get("attn_output"), got.get(3).get("attn_output"), command);
        }
    }

    @Test
    @DisplayName("declaring the schema of an input of several partitions runs no pass over it: one job, on the sampled "
        + "lines in memory")
    void noInferencePass() throws IOException, TimeoutException {
        Random random = new Random(7);
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < 400; r++) {
            lines.add("{\"id\":" + r + ",\"query\":" + matrix(random, 1 + r % 9, 8) + ",\"key_length\":" + r % 2 + "}");
        }
        Path in = write("big.jsonl", lines);
        SparkSession spark = SparkSessions.start("JsonSchemaInputTest", Cli.MASTER);
        AtomicLong bytesRead = new AtomicLong();
        List<String> stages = new CopyOnWriteArrayList<>();
        SparkListener listener = new SparkListener() {
            @Override
            public void onStageCompleted(SparkListenerStageCompleted completed) {
                long bytes = completed.stageInfo().taskMetrics().inputMetrics().bytesRead();
                bytesRead.addAndGet(bytes);
                stages.add(completed.stageInfo().name() + ": " + bytes + " bytes");
            }
        };
        spark.sparkContext().listenerBus().waitUntilEmpty();
        spark.sparkContext().addSparkListener(listener);
        spark.conf().set(SPLIT, "4096");
        StructType schema;
        AttentionOptions options = new AttentionOptions();
        options.queryCol = "query";
        try {
            schema = DeclaredSchema.of(spark, JsonLines.of(in.toString()), AttentionCommand.knownColumns(options));
            spark.sparkContext().listenerBus().waitUntilEmpty();
        } finally {
            spark.sparkContext().removeSparkListener(listener);
            spark.conf().unset(SPLIT);
        }
        assertEquals(0, bytesRead.get(), "bytes read from the input while reading its schema, in stages " + stages);
        assertTrue(stages.size() <= 1, stages.toString());
        assertEquals("struct<id:bigint,key_length:bigint,query:array<array<double>>>", schema.simpleString());
        InputTable table = InputTable.read(spark, in.toString(), InputFiles.Format.JSON,
            AttentionCommand.knownColumns(options), null);
        assertEquals(400, table.total);
        assertEquals(400, table.rows.count());
    }

    @Test
    @DisplayName("a bad record in a later partition is named by its line in the file")
    void rowNumbersAcrossPartitions() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < 400; r++) {
            lines.add("{\"id\":" + r + ",\"query\":[[1,0,0,1],[0,1,1,0]]}");
        }
        lines.set(350, "{\"id\":350,\"query\":[[1,0,0,1],[0,1]]}");
        Path in = write("in.jsonl", lines);
        SparkSession spark = SparkSessions.start("JsonSchemaInputTest", Cli.MASTER);
        spark.conf().set(SPLIT, "4096");
        try {
            assertBad(sdpa(in, dir.resolve("out.jsonl")),
                "spark-attention sdpa: --input " + in + ": line 351: column query row 1 has 2 values, expected 4 "
                    + "(as row 0)");
        } finally {
            spark.conf().unset(SPLIT);
        }
    }

    @Test
    @DisplayName("columns the command does not know pass through with the types and values Spark reads")
    void otherColumnsPassThrough() throws IOException {
        String line = "{\"id\":12345678901234567,\"text\":\"naïve \\\"quoted\\\"\",\"score\":0.1,\"tags\":[\"a\",\"b\"],"
            + "\"meta\":{\"source\":\"x\",\"n\":3},\"query\":[[1,0],[0,1]]}";
        Path in = write("in.jsonl", List.of(line));
        Path out = dir.resolve("out.jsonl");
        assertEquals(0, sdpa(in, out).exitCode);
        JsonNode got = Cli.readJsonLines(out).get(0), want = Cli.JSON.readTree(line);
        for (String column : List.of("id", "text", "score", "tags", "meta")) {
            assertEquals(want.get(column), got.get(column), column);
        }
    }

    @Test
    @DisplayName("masks and biases are per head or shared as the first non-empty value's depth says")
    void planeDepthFromTheData() throws IOException {
        String q = "[[1,0,0,1],[0,1,1,0]]";
        Path shared = write("shared.jsonl", List.of("{\"query\":[],\"attn_mask\":[]}",
            "{\"query\":" + q + ",\"attn_mask\":[[true,false],[true,true]],\"attn_bias\":[[0,1],[1,0]]}"));
        Path perHead = write("per-head.jsonl", List.of("{\"query\":" + q + ",\"attn_mask\":[[[true,false],[true,true]],"
            + "[[true,true],[false,true]]],\"attn_bias\":[[[0,1],[1,0]],[[0,0],[0,0]]]}"));
        Path sharedOut = dir.resolve("shared-out.jsonl"), perHeadOut = dir.resolve("per-head-out.jsonl");
        assertEquals(0, sdpa(shared, sharedOut, "--num-heads", "2").exitCode);
        assertEquals(0, sdpa(perHead, perHeadOut, "--num-heads", "2").exitCode);
        assertEquals(2, Cli.readJsonLines(sharedOut).get(1).get("attn_output").size());
        assertEquals(2, Cli.readJsonLines(perHeadOut).get(0).get("attn_output").size());
    }

    @Test
    @DisplayName("a plane of another depth, or a string for a matrix, names the column and line, sampled or not")
    void wrongDepthNamesTheLine() throws IOException {
        String good = "{\"query\":[[1,0],[0,1]],\"attn_mask\":[[true,false],[true,true]]}";
        String deeper = "{\"query\":[[1,0],[0,1]],\"attn_mask\":[[[true,false],[true,true]]]}";
        Path out = dir.resolve("out.jsonl");
        Path early = write("early.jsonl", List.of(good, "", deeper));
        assertBad(sdpa(early, out), "spark-attention sdpa: --input " + early + ": line 3: column attn_mask: expected "
            + "array<array<boolean>> (the depth of line 1), but [0][0] is an array");

        List<String> lines = new ArrayList<>();
        for (int i = 0; i < DeclaredSchema.SAMPLE_LINES + 20; i++) {
            lines.add(good);
        }
        lines.set(DeclaredSchema.SAMPLE_LINES + 9, deeper);
        Path late = write("late.jsonl", lines);
        assertBad(sdpa(late, out), "spark-attention sdpa: --input " + late + ": line " + (DeclaredSchema.SAMPLE_LINES
            + 10) + ": column attn_mask: expected array<array<boolean>> (as the first lines), but [0][0] is an array");

        lines.set(DeclaredSchema.SAMPLE_LINES + 9, "{\"query\":[\"x\",\"y\"]}");
        Path parts = Files.createDirectories(dir.resolve("parts"));
        Files.write(parts.resolve("part-0.jsonl"), lines.subList(0, 50));
        Files.write(parts.resolve("part-1.jsonl"), lines.subList(50, lines.size()));
        assertBad(sdpa(parts, out), "spark-attention sdpa: --input " + parts + ": part-1.jsonl line "
            + (DeclaredSchema.SAMPLE_LINES - 40) + ": column query: expected array<array<double>> (as the first lines), "
            + "but [0] is a string, not an array");
        assertTrue(Cli.listNames(dir).stream().noneMatch(n -> n.startsWith("out") || n.startsWith(".out")));
    }

    @Test
    @DisplayName("a malformed line after the sampled ones names the file and line")
    void malformedAfterTheSample() throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < DeclaredSchema.SAMPLE_LINES + 5; i++) {
            lines.add("{\"query\":[[1,0]]}");
        }
        lines.add("{\"query\": [[1, 2");
        Path in = write("in.jsonl", lines);
        Cli.Result result = sdpa(in, dir.resolve("out.jsonl"));
        assertEquals(2, result.exitCode, result.toString());
        assertEquals(1, result.errorLines().size(), result.toString());
        assertEquals("spark-attention sdpa: --input " + in + ": malformed JSON record on line "
            + (DeclaredSchema.SAMPLE_LINES + 6) + " (Unexpected end-of-input: expected close marker for Array)",
            result.errorLines().get(0));
    }
}
