package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.sparkattention.examples.cli.BenchRuns.assertError;
import static io.sparkattention.examples.cli.BenchRuns.lines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention bench --encoder}: all-MiniLM-L6-v2's lines, their ratios and its option checks. */
class EncoderBenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The fields every encoder line has, whoever ran it. */
    private static final String[] FIELDS = {"mode", "lengths", "texts", "tokens", "mean_len", "min_len", "max_len",
        "threads", "median_ms", "min_ms", "max_ms", "tokens_per_s", "sentences_per_s", "gflops", "blas", "times_ms",
        "peak_heap_mb", "contenders", "checksum"};

    /** Four passages of 12 to 40 words in one book (the bench cuts it as the demo does). */
    private static final String BOOK = "It is a truth universally acknowledged, that a single man in possession of a "
        + "good fortune, must be in want of a wife.\n\nHowever little known the feelings or views of such a man may be "
        + "on his first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding "
        + "families, that he is considered the rightful property of some one or other of their daughters.\n\n"
        + "\"My dear Mr. Bennet,\" said his lady to him one day, \"have you heard that Netherfield Park is let at "
        + "last?\"\n\nMr. Bennet replied that he had not, but she told him all about it at once and at length.\n";

    @TempDir
    Path dir;

    @Test
    @DisplayName("--encoder --peer ort: the raw encoder's line, then ONNX Runtime's sorted32 and inorder8 on the same "
        + "passages, then the FMA loop's on the same threads; the same embeddings, the encoder's ratios are ONNX "
        + "Runtime's median times over its own, and every contender's fraction_of_fma is its gflops over the loop's")
    void rawEncoderBesideOnnxRuntime() throws Exception {
        List<JsonNode> all = lines("bench", "--encoder", "--corpus", corpus().toString(), "--texts", "3",
            "--threads", "2", "--repeat", "1", "--peer", "ort");
        assertEquals(4, all.size(), all.toString());
        JsonNode fma = all.get(3);
        assertEquals("fma", fma.get("mode").asText());
        assertEquals(2, fma.get("threads").asInt());
        List<JsonNode> lines = all.subList(0, 3);
        JsonNode raw = lines.get(0), sorted = lines.get(1), inorder = lines.get(2);
        assertEquals("encoder", raw.get("mode").asText());
        assertEquals("ort_encoder", sorted.get("mode").asText());
        assertEquals("sorted32", sorted.get("batching").asText());
        assertEquals("inorder8", inorder.get("batching").asText());
        for (JsonNode line : lines) {
            for (String field : FIELDS) {
                assertTrue(line.has(field), field + " in " + line);
            }
            assertEquals("austen", line.get("lengths").asText());
            assertEquals(3, line.get("texts").asInt());
            assertEquals(2, line.get("threads").asInt());
            assertEquals(4, line.get("contenders").asInt());
            assertEquals(line.get("gflops").asDouble() / fma.get("gflops").asDouble(),
                line.get("fraction_of_fma").asDouble(), 0.0006 + 0.001 * line.get("fraction_of_fma").asDouble());
            assertTrue(line.get("min_len").asInt() >= 14 && line.get("max_len").asInt() <= 256, line.toString());
            assertCounts(line);
            // 3 unit vectors of 384: their sums agree to float rounding.
            assertEquals(raw.get("checksum").asDouble(), line.get("checksum").asDouble(), 3 * 384 * 1e-6);
        }
        for (JsonNode peer : List.of(sorted, inorder)) {
            assertTrue(peer.get("max_abs_diff_vs_first").asDouble() < 1e-5, peer.toString());
            assertTrue(peer.get("padding_share").asDouble() > 0 && peer.get("padding_share").asDouble() < 1,
                peer.toString());
        }
        assertRatio(sorted, raw, raw.get("throughput_vs_ort").asDouble());
        assertRatio(inorder, raw, raw.get("throughput_vs_ort_inorder8").asDouble());
    }

    @Test
    @DisplayName("--encoder --seq-len: N sequences of each fixed length, nothing padded, each length's contenders "
        + "followed by the FMA loop")
    void fixedLengths() throws Exception {
        List<JsonNode> lines = lines("bench", "--encoder", "--seq-len", "2,9", "--texts", "2", "--repeat", "1", "--peer",
            "ort");
        assertEquals(8, lines.size(), lines.toString());
        for (int i = 0; i < 8; i++) {
            JsonNode line = lines.get(i);
            if (i % 4 == 3) {
                assertEquals("fma", line.get("mode").asText());
                continue;
            }
            int length = i < 4 ? 2 : 9;
            assertEquals("fixed", line.get("lengths").asText());
            assertEquals(length, line.get("min_len").asInt());
            assertEquals(length, line.get("max_len").asInt());
            assertEquals(2L * length, line.get("tokens").asLong());
            if (i % 4 > 0) {
                assertEquals(0.0, line.get("padding_share").asDouble(), line.toString());
            }
            assertCounts(line);
        }
    }

    @Test
    @DisplayName("--encoder --spark --compare-kernel: the stage's line, then the raw encoder's on the same ids; the "
        + "same checksum, and throughput_vs_raw_encoder is the raw encoder's median time over the stage's")
    void stageBesideTheRawEncoder() throws Exception {
        List<JsonNode> lines = lines("bench", "--encoder", "--spark", "--master", Cli.MASTER, "--seq-len", "6",
            "--texts", "4", "--partitions", "2", "--repeat", "1", "--compare-kernel");
        assertEquals(2, lines.size(), lines.toString());
        JsonNode stage = lines.get(0), raw = lines.get(1);
        assertEquals("spark_encoder", stage.get("mode").asText());
        assertEquals("encoder", raw.get("mode").asText());
        assertEquals(2, stage.get("partitions").asInt());
        for (JsonNode line : lines) {
            assertEquals(24, line.get("tokens").asInt());
            assertCounts(line);
        }
        assertEquals(raw.get("checksum").asDouble(), stage.get("checksum").asDouble(), 4 * 384 * 1e-6);
        assertRatio(raw, stage, stage.get("throughput_vs_raw_encoder").asDouble());
    }

    @Test
    @DisplayName("--write-ids writes the texts' token ids for the PyTorch peer, one JSON line per text, and times "
        + "nothing")
    void writeIds() throws Exception {
        Path ids = dir.resolve("ids.jsonl");
        CommandLineRun run = CommandLineRun.of("bench", "--encoder", "--corpus", corpus().toString(), "--texts", "4",
            "--write-ids", ids.toString());
        assertEquals(0, run.exitCode, run.err);
        assertTrue(run.outLines().isEmpty(), run.out);
        List<String> lines = Files.readAllLines(ids);
        assertEquals(4, lines.size());
        JsonNode first = JSON.readTree(lines.get(0)).get("input_ids");
        // "It is a truth universally acknowledged, ..." in the bundled vocabulary.
        assertEquals(List.of(101, 2009, 2003, 1037, 3606, 21186, 8969, 1010), ints(first).subList(0, 8));
        assertEquals(102, first.get(first.size() - 1).asInt());
        assertFalse(Files.exists(dir.resolve("ids.jsonl.tmp")));
        assertError("--write-ids " + ids + " already exists (--overwrite replaces an earlier output of spark-attention)", "bench", "--encoder", "--corpus",
            corpus().toString(), "--texts", "4", "--write-ids", ids.toString());
    }

    @Test
    @DisplayName("bad invocations: exit 2 and one line naming the option")
    void badInvocations() throws Exception {
        assertError("--texts needs --encoder", "bench", "--seq-len", "8", "--texts", "3");
        assertError("--head-dim is not an option of --encoder", "bench", "--encoder", "--head-dim", "8");
        assertError("--seq-len with --encoder must be in [2, 256] ([CLS] and [SEP] included), got 300", "bench",
            "--encoder", "--seq-len", "300");
        assertError("--texts must be >= 1, got 0", "bench", "--encoder", "--texts", "0");
        assertError("--peer: unknown peer \"fma\" for --encoder, expected ort, torch or ort,torch", "bench", "--encoder",
            "--seq-len", "4", "--peer", "fma");
        assertError("--peer runs beside the raw encoder, not with --spark (use --compare-kernel)", "bench", "--encoder",
            "--spark", "--seq-len", "4", "--peer", "torch");
        assertError("--partitions, --compare-kernel and --master need --spark", "bench", "--encoder", "--seq-len",
            "4", "--compare-kernel");
        assertError("--threads is not an option of --spark (it runs on the cluster's cores: --master 'local[N]')",
            "bench", "--encoder", "--spark", "--seq-len", "4", "--threads", "2");
        Path missing = dir.resolve("missing");
        assertError("--corpus " + missing + ": no such directory", "bench", "--encoder", "--corpus",
            missing.toString());
        assertError("--texts: corpus " + corpus() + " has 4 passages, fewer than 5", "bench", "--encoder", "--corpus",
            corpus().toString(), "--texts", "5");
    }

    private Path corpus() throws Exception {
        Path books = dir.resolve("books");
        if (!Files.isDirectory(books)) {
            Files.createDirectories(books);
            Files.writeString(books.resolve("pride_and_prejudice.txt"), BOOK, StandardCharsets.UTF_8);
        }
        return books;
    }

    /** gflops counts 8·L·E² + 4·L·E·I + 4·L²·E per layer and text, at least its linear part; the rates count tokens and texts. */
    private static void assertCounts(JsonNode line) {
        double median = line.get("median_ms").asDouble(), tokens = line.get("tokens").asDouble();
        double linear = 6 * tokens * (8.0 * 384 * 384 + 4.0 * 384 * 1536);
        double bound = 6 * (4.0 * line.get("max_len").asDouble() * tokens * 384);
        double gflops = line.get("gflops").asDouble();
        assertTrue(gflops >= linear / (median * 1e6) * 0.99 - 0.001
            && gflops <= (linear + bound) / (median * 1e6) * 1.01 + 0.001, line.toString());
        double perSecond = tokens / (median / 1e3);
        assertEquals(perSecond, line.get("tokens_per_s").asDouble(), 0.05 + 0.001 * perSecond, line.toString());
        double texts = line.get("texts").asDouble() / (median / 1e3);
        assertEquals(texts, line.get("sentences_per_s").asDouble(), 0.05 + 0.001 * texts, line.toString());
        assertEquals(tokens / line.get("texts").asDouble(), line.get("mean_len").asDouble(), 0.001);
        assertTrue(Double.isFinite(line.get("checksum").asDouble()), line.toString());
    }

    /** {@code ratio} is {@code other}'s median time over {@code line}'s. */
    private static void assertRatio(JsonNode other, JsonNode line, double ratio) {
        double expected = other.get("median_ms").asDouble() / line.get("median_ms").asDouble();
        assertEquals(expected, ratio, 0.0006 + 0.001 * expected);
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }
}
