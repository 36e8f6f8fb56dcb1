package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.io.compress.Lz4Codec;
import org.apache.hadoop.io.compress.SnappyCodec;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the command line reads: JSON lines plain or compressed with any codec Spark reads, Parquet,
 * integer matrices in either format; and what it says about an input it cannot read: mixed
 * formats, unknown files, a JSON array or a pretty-printed document, a missing column; never the
 * command's own row index column.
 */
class CommandInputTest {

    private static final String LINES = "{\"query\":[[1,0],[0,1]]}\n{\"query\":[[1,2],[3,4],[5,6]]}\n";
    private static final String NO_SPARK = "not-a-master";

    @TempDir
    Path dir;

    private Cli.Result sdpa(Path in, Path out, String master, String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", in.toString(), "--output", out.toString(),
            "--master", master));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    private static void compress(Class<? extends CompressionCodec> codecClass, Path file, String text)
        throws IOException {
        CompressionCodec codec = ReflectionUtils.newInstance(codecClass, new Configuration());
        try (OutputStream out = codec.createOutputStream(Files.newOutputStream(file))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void assertBad(Cli.Result result, String expectedLine) {
        assertEquals(2, result.exitCode, result.toString());
        assertEquals(List.of(expectedLine), result.errorLines());
        assertFalse(Files.exists(dir.resolve("out.jsonl")), "no output");
    }

    @Test
    @DisplayName("JSON lines compressed with gzip, bzip2, deflate, LZ4 or Snappy read like plain JSON lines")
    void compressedJsonLines() throws IOException {
        Path plain = Files.writeString(dir.resolve("plain.jsonl"), LINES);
        assertEquals(0, sdpa(plain, dir.resolve("plain-out.jsonl"), Cli.MASTER).exitCode);
        List<JsonNode> want = Cli.readJsonLines(dir.resolve("plain-out.jsonl"));
        List<Class<? extends CompressionCodec>> codecs = List.of(GzipCodec.class, BZip2Codec.class, DefaultCodec.class,
            Lz4Codec.class, SnappyCodec.class);
        List<String> extensions = List.of(".gz", ".bz2", ".deflate", ".lz4", ".snappy");
        for (int i = 0; i < codecs.size(); i++) {
            Path in = dir.resolve("in.jsonl" + extensions.get(i));
            compress(codecs.get(i), in, LINES);
            Path out = dir.resolve("out" + i + ".jsonl");
            Cli.Result result = sdpa(in, out, Cli.MASTER);
            assertEquals(0, result.exitCode, extensions.get(i) + ": " + result);
            assertEquals(want, Cli.readJsonLines(out), extensions.get(i));
        }
        Path parts = Files.createDirectories(dir.resolve("parts"));
        compress(GzipCodec.class, parts.resolve("part-0.json.gz"), LINES);
        compress(GzipCodec.class, parts.resolve("part-1.json.gz"), LINES);
        assertEquals(0, sdpa(parts, dir.resolve("parts-out.jsonl"), Cli.MASTER).exitCode);
        assertEquals(4, Cli.readJsonLines(dir.resolve("parts-out.jsonl")).size());
    }

    @Test
    @DisplayName("a directory of mixed formats, an unknown file and a corrupt gzip file are named precisely")
    void mixedAndUnknownFiles() throws IOException {
        Path mixed = Files.createDirectories(dir.resolve("mixed"));
        Files.writeString(mixed.resolve("a.jsonl"), LINES);
        Files.writeString(mixed.resolve("b.parquet"), "PAR1");
        Path out = dir.resolve("out.jsonl");
        assertBad(sdpa(mixed, out, NO_SPARK), "spark-attention sdpa: --input " + mixed + ": mixed formats: a.jsonl is "
            + "JSON lines, b.parquet is Parquet; put the files of each format in a directory of their own");
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.writeString(other.resolve("a.jsonl"), LINES);
        Files.writeString(other.resolve("notes.txt"), "mine");
        String expected = " is neither JSON lines nor CSV nor Parquet: expected JSON lines (.json, .jsonl, .ndjson), "
            + "CSV with a header (.csv), each optionally compressed (.gz, .bz2, .deflate, .lz4, .snappy), or Parquet "
            + "(.parquet), or --input-format json|csv|parquet";
        assertBad(sdpa(other, out, NO_SPARK), "spark-attention sdpa: --input " + other.resolve("notes.txt") + expected);
        Path text = Files.writeString(dir.resolve("in.txt"), "a,b\n");
        assertBad(sdpa(text, out, NO_SPARK), "spark-attention sdpa: --input " + text + expected);
        Path notGzip = Files.writeString(dir.resolve("in.jsonl.gz"), LINES);
        Cli.Result corrupt = sdpa(notGzip, out, NO_SPARK);
        assertEquals(2, corrupt.exitCode, corrupt.toString());
        assertTrue(corrupt.errorLines().get(0).startsWith("spark-attention sdpa: --input " + notGzip
            + ": cannot read it as .gz-compressed data"), corrupt.toString());
    }

    @Test
    @DisplayName("a JSON array, a pretty-printed object and a text file are not JSON lines, and are called so")
    void notJsonLines() throws IOException {
        Path out = dir.resolve("out.jsonl");
        Path array = Files.writeString(dir.resolve("array.json"), "[\n  {\"query\": [[1, 0]]},\n  {\"query\": [[0, 1]]}\n]\n");
        assertBad(sdpa(array, out, NO_SPARK), "spark-attention sdpa: --input " + array + ": expected one JSON object "
            + "per line (JSON lines), found a JSON array (convert it with: jq -c '.[]')");
        Path pretty = Files.writeString(dir.resolve("pretty.json"), "{\n  \"query\": [[1, 0]]\n}\n");
        assertBad(sdpa(pretty, out, NO_SPARK), "spark-attention sdpa: --input " + pretty + ": expected one JSON object "
            + "per line (JSON lines), found an object spread over several lines (write each record on one line, e.g. "
            + "with jq -c .)");
        Path text = Files.writeString(dir.resolve("text.jsonl"), "query: 1 0\n");
        assertBad(sdpa(text, out, NO_SPARK), "spark-attention sdpa: --input " + text + ": expected one JSON object per "
            + "line (JSON lines), found a line starting with 'query: 1 0'");
    }

    @Test
    @DisplayName("errors list the input's columns without the command's own row index column")
    void noInternalColumnNames() throws IOException {
        Path in = Files.writeString(dir.resolve("in.jsonl"), "{\"id\":1,\"query\":[[1,0]]}\n");
        Path out = dir.resolve("out.jsonl");
        List<String> errors = new ArrayList<>();
        Cli.Result missing = sdpa(in, out, Cli.MASTER, "--query-col", "x");
        assertBad(missing, "spark-attention sdpa: --input " + in + " has no column x (--query-col); its columns: id, "
            + "query");
        errors.addAll(missing.errorLines());
        Cli.Result wrongType = sdpa(in, out, Cli.MASTER, "--query-col", "id");
        assertEquals(2, wrongType.exitCode, wrongType.toString());
        errors.addAll(wrongType.errorLines());
        Files.writeString(in, "{\"query\":\"text\",\"key\":[[1,0]]}\n");
        errors.addAll(sdpa(in, out, Cli.MASTER).errorLines());
        assertEquals(3, errors.size(), errors.toString());
        for (String e : errors) {
            assertFalse(e.contains("__spark_attention_row") || e.contains("_corrupt_record"), e);
        }
    }

    @Test
    @DisplayName("integer matrices read as float the same in JSON lines and in Parquet (int and long arrays)")
    void integerMatrices() throws IOException {
        String ints = "{\"query\":[[1,0],[0,2]],\"key\":[[1,1],[2,0],[0,3]],\"value\":[[1,2],[3,4],[5,6]]}\n";
        Path json = Files.writeString(dir.resolve("ints.jsonl"), ints);
        Path jsonOut = dir.resolve("json-out.jsonl");
        assertEquals(0, sdpa(json, jsonOut, Cli.MASTER).exitCode);
        List<JsonNode> want = Cli.readJsonLines(jsonOut);
        SparkSession spark = SparkSessions.start("CommandInputTest", Cli.MASTER);
        for (String type : List.of("int", "bigint")) {
            Path parquet = dir.resolve("ints-" + type + ".parquet");
            spark.read().json(json.toString()).select(
                functions.col("query").cast("array<array<" + type + ">>").as("query"),
                functions.col("key").cast("array<array<" + type + ">>").as("key"),
                functions.col("value").cast("array<array<" + type + ">>").as("value"))
                .coalesce(1).write().parquet(parquet.toString());
            Path out = dir.resolve("parquet-" + type + "-out.jsonl");
            Cli.Result result = sdpa(parquet, out, Cli.MASTER);
            assertEquals(0, result.exitCode, type + ": " + result);
            assertEquals(want.get(0).get("attn_output"), Cli.readJsonLines(out).get(0).get("attn_output"), type);
        }
    }
}
