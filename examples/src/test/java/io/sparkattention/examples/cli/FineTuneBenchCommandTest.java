package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.bench.TorchPeers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.sparkattention.examples.cli.BenchRuns.assertError;
import static io.sparkattention.examples.cli.BenchRuns.lines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code spark-attention bench --fine-tune}: our line from a real fit, the batch PyTorch 1.13's
 * script reads, and the option checks (PyTorch 2.7.1's own module is tested in examples/torch-peer).
 */
class FineTuneBenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Two passages of 12 to 40 words per book (the bench cuts them as the demo does). */
    private static final String[] BOOKS = {
        "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want "
            + "of a wife.\n\nHowever little known the feelings or views of such a man may be on his first entering a "
            + "neighbourhood, this truth is so well fixed in the minds of the surrounding families.\n",
        "Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition, seemed to unite "
            + "some of the best blessings of existence.\n\nShe was the youngest of the two daughters of a most "
            + "affectionate, indulgent father; and had, in consequence of her sister's marriage, been mistress of his "
            + "house.\n"};

    @TempDir
    Path dir;

    @Test
    @DisplayName("--fine-tune: one fine_tune line from a fit of every layer on the batch, its tokens over its median "
        + "step, in the partitions asked for, then the FMA loop's line on the master's cores; gflops counts three "
        + "forwards' work per step and fraction_of_fma is it over the loop's")
    void ourLine() throws Exception {
        // one partition: every layer of MiniLM trainable makes each task's gradient sums 22.7M doubles
        List<JsonNode> lines = lines("bench", "--fine-tune", "--corpus", corpus().toString(), "--rows-per-step", "4",
            "--partitions", "1", "--repeat", "2", "--master", "local[2]");
        assertEquals(2, lines.size(), lines.toString());
        JsonNode line = lines.get(0), fma = lines.get(1);
        assertEquals("fine_tune", line.get("mode").asText());
        assertEquals("fma", fma.get("mode").asText());
        assertEquals(2, fma.get("threads").asInt());
        assertEquals(2, fma.get("times_ms").size(), "one repetition per timed step: " + fma);
        assertEquals(4, line.get("rows_per_step").asInt());
        assertEquals(1, line.get("partitions").asInt());
        assertEquals(2, line.get("num_classes").asInt());
        assertEquals(-1, line.get("trainable_layers").asInt());
        assertEquals(2, line.get("times_ms").size());
        assertEquals(3, line.get("warmup_step_ms").size());
        long tokens = line.get("tokens_per_step").asLong();
        assertTrue(tokens >= 4 * 14, line.toString());
        double median = line.get("median_step_ms").asDouble();
        assertTrue(median > 0 && median >= line.get("min_step_ms").asDouble(), line.toString());
        assertEquals(tokens / (median / 1e3), line.get("tokens_per_s").asDouble(), 0.1);
        double linear = 3 * 6 * tokens * (8.0 * 384 * 384 + 4.0 * 384 * 1536), gflops = line.get("gflops").asDouble();
        assertTrue(gflops >= linear / (median * 1e6) * 0.99 - 0.001, line.toString());
        assertEquals(gflops / fma.get("gflops").asDouble(), line.get("fraction_of_fma").asDouble(),
            0.0006 + 0.001 * line.get("fraction_of_fma").asDouble());
        assertTrue(Double.isFinite(line.get("loss_first").asDouble()) && Double.isFinite(line.get("loss_last").asDouble()),
            line.toString());
        assertFalse(line.has("throughput_vs_torch"), "no peer, no ratio: " + line);
        JsonNode split = line.get("step_split");
        double shares = 0;
        for (String part : List.of("executor_compute", "executor_gc", "result_transfer", "driver_update", "broadcast",
            "idle_in_job")) {
            shares += split.get(part).asDouble();
        }
        assertEquals(1.0, shares, 0.01, "the step's slot time, split: " + split);
        assertTrue(split.get("executor_compute").asDouble() > 0 && split.get("driver_update").asDouble() > 0,
            split.toString());
        assertEquals(1 - split.get("executor_compute").asDouble(), split.get("non_compute").asDouble(), 0.0015);
        // The word embedding (30,522 × 384) travels as the rows the passages touched: under 11.8M of 22.7M values.
        long values = split.get("largest_task_result_values").asLong();
        assertTrue(values > 10_000_000 && values < 11_800_000, split.toString());
        assertTrue(split.get("task_results_mb_per_step").asDouble() < 8.0 * 11.8, split.toString());
    }

    @Test
    @DisplayName("--fine-tune --write-ids: the batch's ids and labels for torch_fine_tune.py, books in file-name order")
    void writesTheBatch() throws Exception {
        Path file = dir.resolve("batch.jsonl");
        CommandLineRun run = CommandLineRun.of("bench", "--fine-tune", "--corpus", corpus().toString(),
            "--rows-per-step", "4", "--write-ids", file.toString());
        assertEquals(0, run.exitCode, run.err);
        List<String> rows = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(4, rows.size());
        Set<Integer> labels = new HashSet<>();
        for (String row : rows) {
            JsonNode node = JSON.readTree(row);
            JsonNode ids = node.get("input_ids");
            assertEquals(101, ids.get(0).asInt());
            assertEquals(102, ids.get(ids.size() - 1).asInt());
            labels.add(node.get("label").asInt());
        }
        assertEquals(Set.of(0, 1), labels);
        assertError("--write-ids " + file + " already exists (--overwrite replaces an earlier output of spark-attention)",
            "bench", "--fine-tune", "--corpus",
            corpus().toString(), "--rows-per-step", "4", "--write-ids", file.toString());
    }

    @Test
    @DisplayName("--fine-tune refuses other modes' options, unknown peers and partitions beyond the rows, before any work")
    void optionChecks() throws Exception {
        String corpus = corpus().toString();
        assertError("--encoder and --fine-tune are separate modes: give one of them", "bench", "--encoder",
            "--fine-tune");
        assertError("--seq-len is not an option of --fine-tune", "bench", "--fine-tune", "--seq-len", "8");
        assertError("--peer: unknown peer \"ort\" for --fine-tune, expected torch", "bench", "--fine-tune", "--peer",
            "ort");
        assertError("--partitions must be <= --rows-per-step (4), got 5", "bench", "--fine-tune", "--rows-per-step",
            "4", "--partitions", "5");
        assertError("--rows-per-step must be >= 1, got 0", "bench", "--fine-tune", "--rows-per-step", "0");
        assertError("--threads sets PyTorch's threads: it needs --peer torch (ours runs on the master's cores: "
            + "--master 'local[N]')", "bench", "--fine-tune", "--threads", "2");
        assertError("--rows-per-step: corpus " + corpus + " has 4 passages, fewer than 5", "bench", "--fine-tune",
            "--corpus", corpus, "--rows-per-step", "5");
        Path empty = Files.createDirectories(dir.resolve("no-torch"));
        System.setProperty(TorchPeers.TARGET_PROPERTY, empty.toString());
        try {
            assertError("--peer torch: the torch peer is not built (" + empty.resolve("torch-classpath")
                + " is missing); examples/bin/spark-attention builds it, or run "
                + "mvn -B -q -Ptorch -pl examples/torch-peer -am package -DskipTests", "bench", "--fine-tune",
                "--corpus", corpus, "--rows-per-step", "4", "--peer", "torch");
        } finally {
            System.clearProperty(TorchPeers.TARGET_PROPERTY);
        }
    }

    /** Two books of two passages each. */
    private Path corpus() throws Exception {
        Path books = dir.resolve("books");
        if (!Files.isDirectory(books)) {
            Files.createDirectories(books);
            Files.writeString(books.resolve("a_pride.txt"), BOOKS[0], StandardCharsets.UTF_8);
            Files.writeString(books.resolve("b_emma.txt"), BOOKS[1], StandardCharsets.UTF_8);
        }
        return books;
    }
}
