package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The corpus shapes users have, through the one command template: one compressed file split over
 * the cores, --partitions, the input's order kept across part files (files in path order), Hive
 * partitions in and out, CSV, re-embedding an output, --handle-invalid, and the token limit.
 */
class CorpusCommandsTest {

    @TempDir
    Path dir;

    private static String texts(int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append("{\"id\": ").append(i).append(", \"text\": \"sentence number ").append(i).append("\"}\n");
        }
        return b.toString();
    }

    private static String queries(int from, int to) {
        StringBuilder b = new StringBuilder();
        for (int i = from; i < to; i++) {
            b.append("{\"id\": ").append(i).append(", \"query\": [[").append(i % 7).append(".0, 1.0]]}\n");
        }
        return b.toString();
    }

    private static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    private static List<Path> partFiles(Path out) throws IOException {
        try (Stream<Path> files = Files.walk(out)) {
            return files.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().collect(Collectors.toList());
        }
    }

    private static List<Integer> ids(List<JsonNode> rows) {
        return rows.stream().map(r -> r.get("id").asInt()).collect(Collectors.toList());
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }

    private static CommandLineRun ok(String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(0, run.exitCode, run.err);
        return run;
    }

    /** Exit 2, one line on stderr holding {@code fragment}, nothing new in the directory. */
    private void refused(String fragment, String... args) {
        Map<String, String> before = Trees.snapshot(dir);
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        assertTrue(run.errorLines().get(0).contains(fragment), "'" + fragment + "' in " + run.errorLines().get(0));
        assertEquals(before, Trees.snapshot(dir), "nothing left behind");
    }

    @Test
    @DisplayName("a single 3,000-text .jsonl.gz runs as several tasks on local[2]; the part files hold the texts in "
        + "input order; progress and closing lines on stdout")
    void oneCompressedFileOverEveryCore() throws IOException {
        Path in = dir.resolve("texts.jsonl.gz");
        try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(in))) {
            gz.write(texts(0, 3000).getBytes(StandardCharsets.UTF_8));
        }
        Path out = dir.resolve("embedded");
        CommandLineRun run = ok("embed", "--input", in.toString(), "--output", out.toString(), "--max-length", "8",
            "--master", Cli.MASTER);
        assertTrue(partFiles(out).size() > 1, "part files: " + partFiles(out));
        assertEquals(range(0, 3000), ids(Cli.readJsonLines(out)));
        assertTrue(run.out.contains("embed: 3,000 texts embedded into " + out + "; 0 truncated at 8 tokens"), run.out);
    }

    @Test
    @DisplayName("--partitions 4 gives four part files holding a directory's files in path order, whatever their sizes")
    void partitionsKeepPathOrder() throws IOException {
        Path in = dir.resolve("in");
        write(in.resolve("b.jsonl"), queries(10, 1010));
        write(in.resolve("a.jsonl"), queries(0, 10));
        write(in.resolve("c.jsonl"), queries(1010, 1510));
        Path out = dir.resolve("out");
        CommandLineRun run = ok("sdpa", "--input", in.toString(), "--output", out.toString(), "--partitions", "4",
            "--master", Cli.MASTER);
        assertEquals(4, partFiles(out).size(), partFiles(out).toString());
        assertEquals(range(0, 1510), ids(Cli.readJsonLines(out)));
        assertTrue(run.out.contains("sdpa: 1,510 rows written to " + out), run.out);
        for (String bad : List.of("0", "-1", "1048577")) {
            refused("--partitions must be in [1, 1048576], got " + bad, "sdpa", "--input", in.toString(),
                "--output", dir.resolve("x").toString(), "--partitions", bad);
        }
    }

    @Test
    @DisplayName("Hive-partitioned input keeps its partition column; --partition-by writes one directory per value")
    void hivePartitions() throws IOException {
        Path in = dir.resolve("hive");
        write(in.resolve("bucket=1/part-0.jsonl"), queries(5, 9));
        write(in.resolve("bucket=0/part-0.jsonl"), queries(0, 5));
        Path out = dir.resolve("out.jsonl");
        ok("sdpa", "--input", in.toString(), "--output", out.toString(), "--master", Cli.MASTER);
        List<JsonNode> rows = Cli.readJsonLines(out);
        assertEquals(range(0, 9), ids(rows));
        assertEquals(0, rows.get(0).get("bucket").asInt());
        assertEquals(1, rows.get(8).get("bucket").asInt());

        Path split = dir.resolve("split");
        ok("sdpa", "--input", in.toString(), "--output", split.toString(), "--partition-by", "bucket",
            "--master", Cli.MASTER);
        assertEquals(range(0, 5), ids(Cli.readJsonLines(split.resolve("bucket=0"))));
        assertEquals(range(5, 9), ids(Cli.readJsonLines(split.resolve("bucket=1"))));
        refused("--partition-by writes a directory of partitions", "sdpa", "--input", in.toString(), "--output",
            dir.resolve("one.jsonl").toString(), "--partition-by", "bucket");
        refused("--partition-by nope: the output has no such column", "sdpa", "--input", in.toString(), "--output",
            dir.resolve("nope").toString(), "--partition-by", "nope", "--master", Cli.MASTER);
    }

    @Test
    @DisplayName("CSV with a header, by extension or --input-format; an unknown extension names its full path")
    void csvInput() throws IOException {
        Path csv = write(dir.resolve("texts.csv"), "id,text\n0,hello world\n1,\"commas, inside\"\n");
        Path out = dir.resolve("csv.jsonl");
        ok("embed", "--input", csv.toString(), "--output", out.toString(), "--master", Cli.MASTER);
        List<JsonNode> rows = Cli.readJsonLines(out);
        assertEquals(2, rows.size());
        assertEquals("commas, inside", rows.get(1).get("text").asText());
        assertEquals(384, rows.get(1).get("embedding").size());

        Path txt = write(dir.resolve("texts.txt"), "id,text\n0,hello world\n");
        refused("--input " + txt + " is neither JSON lines nor CSV nor Parquet", "embed", "--input", txt.toString(),
            "--output", dir.resolve("t.jsonl").toString());
        Path asCsv = dir.resolve("txt.jsonl");
        ok("embed", "--input", txt.toString(), "--input-format", "csv", "--output", asCsv.toString(),
            "--master", Cli.MASTER);
        assertEquals(rows.get(0).get("embedding"), Cli.readJsonLines(asCsv).get(0).get("embedding"));
    }

    @Test
    @DisplayName("an output embedded again: refused naming --output-col-prefix, then done with it")
    void reEmbed() throws IOException {
        Path in = write(dir.resolve("in.jsonl"), texts(0, 3));
        Path first = dir.resolve("first.parquet");
        ok("embed", "--input", in.toString(), "--output", first.toString(), "--master", Cli.MASTER);
        refused("--output-col-prefix", "embed", "--input", first.toString(), "--output",
            dir.resolve("again.jsonl").toString(), "--master", Cli.MASTER);
        Path again = dir.resolve("again.jsonl");
        ok("embed", "--input", first.toString(), "--output", again.toString(), "--output-col-prefix", "e2_",
            "--master", Cli.MASTER);
        JsonNode row = Cli.readJsonLines(again).get(0);
        assertEquals(row.get("input_ids"), row.get("e2_input_ids"));
        assertTrue(row.has("embedding") && row.has("e2_embedding"), row.toString());
        refused("--output-col-prefix: letters, digits and _ only", "embed", "--input", in.toString(), "--output",
            dir.resolve("x.jsonl").toString(), "--output-col-prefix", "a b");
    }

    @Test
    @DisplayName("--max-length below 2 is refused with one line and no output; 2 keeps [CLS] and [SEP] only")
    void maxLength() throws IOException {
        Path in = write(dir.resolve("in.jsonl"), texts(0, 3));
        for (String bad : List.of("1", "0", "-3")) {
            refused("--max-length must be >= 2 ([CLS] and [SEP] count), got " + bad, "embed", "--input",
                in.toString(), "--output", dir.resolve("out.jsonl").toString(), "--max-length", bad);
        }
        refused("--max-length 513 is longer than the model's 512 positions", "embed", "--input", in.toString(),
            "--output", dir.resolve("out.jsonl").toString(), "--max-length", "513");
        Path out = dir.resolve("two.jsonl");
        CommandLineRun run = ok("embed", "--input", in.toString(), "--output", out.toString(), "--max-length", "2",
            "--master", Cli.MASTER);
        for (JsonNode row : Cli.readJsonLines(out)) {
            assertEquals("[101,102]", row.get("input_ids").toString());
        }
        assertTrue(run.out.contains("3 truncated at 2 tokens"), run.out);
    }

    @Test
    @DisplayName("a null text: error names its line, skip leaves the row out, keep gives null outputs")
    void handleInvalid() throws IOException {
        Path in = write(dir.resolve("in.jsonl"), "{\"id\": 0, \"text\": \"one\"}\n{\"id\": 1, \"text\": null}\n"
            + "{\"id\": 2, \"text\": \"three\"}\n");
        refused("line 2", "embed", "--input", in.toString(), "--output", dir.resolve("e.jsonl").toString(),
            "--master", Cli.MASTER);
        Path skipped = dir.resolve("skip.jsonl");
        ok("embed", "--input", in.toString(), "--output", skipped.toString(), "--handle-invalid", "skip",
            "--master", Cli.MASTER);
        assertEquals(List.of(0, 2), ids(Cli.readJsonLines(skipped)));
        Path kept = dir.resolve("keep.jsonl");
        ok("embed", "--input", in.toString(), "--output", kept.toString(), "--handle-invalid", "keep",
            "--master", Cli.MASTER);
        List<JsonNode> rows = Cli.readJsonLines(kept);
        assertEquals(List.of(0, 1, 2), ids(rows));
        assertFalse(rows.get(1).hasNonNull("embedding"), rows.get(1).toString());
        assertEquals(Cli.readJsonLines(skipped).get(1).get("embedding"), rows.get(2).get("embedding"));
        refused("--handle-invalid: expected one of error, skip, keep, got 'drop'", "embed", "--input", in.toString(),
            "--output", dir.resolve("x.jsonl").toString(), "--handle-invalid", "drop");
    }

    @Test
    @DisplayName("describe prints the bundled encoder's configuration as one JSON object; an unknown name is refused")
    void describe() throws IOException {
        CommandLineRun run = ok("describe", "all-minilm-l6-v2");
        JsonNode json = Cli.JSON.readTree(run.out);
        assertEquals(6, json.get("layers").asInt());
        assertEquals(384, json.get("hidden").asInt());
        assertEquals(12, json.get("heads").asInt());
        assertEquals(30522, json.get("vocabulary").asInt());
        assertEquals(512, json.get("positions").asInt());
        assertEquals("mean", json.get("pooling").asText());
        assertEquals(256, json.get("tokenizer").get("max_length").asInt());
        refused("neither a directory nor a bundled model", "describe", "no-such-model");
    }
}
