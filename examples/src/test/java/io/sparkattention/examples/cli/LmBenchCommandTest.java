package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.bench.TorchPeers;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.io.GptModelFiles;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.sparkattention.examples.cli.BenchRuns.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code spark-attention bench --lm}'s option checks, all before any work (its contenders are
 * tested in examples/bench's LM tests and, for PyTorch 2.7.1, in examples/torch-peer).
 */
class LmBenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    @DisplayName("--lm refuses other modes' options, unknown peers and modes, and a corpus too small, before any work")
    void optionChecks() throws Exception {
        assertError("--lm, --encoder and --fine-tune are separate modes: give one of them", "bench", "--lm",
            "--encoder");
        assertError("--seq-len is not an option of --lm", "bench", "--lm", "--seq-len", "8");
        assertError("--master is not an option of --lm", "bench", "--lm", "--master", "local[1]");
        assertError("--peer: unknown peer \"ort\" for --lm, expected torch", "bench", "--lm", "--peer", "ort");
        assertError("--lm-mode: unknown mode \"lm_train\", expected lm_score, lm_generate or lm_memory", "bench",
            "--lm", "--lm-mode", "lm_train");
        assertError("--lm-mode needs --lm", "bench", "--encoder", "--lm-mode", "lm_score");
        assertError("--write-model goes with --lm-mode lm_memory", "bench", "--lm", "--write-model", "m");
        assertError("--texts must be >= 1, got 0", "bench", "--lm", "--texts", "0");
        assertError("--threads must be >= 1, got 0", "bench", "--lm", "--threads", "0");
        assertError("--lm-mode lm_memory runs alone, without --peer (its heap is the figure)", "bench", "--lm",
            "--lm-mode", "lm_memory,lm_score");
        Path missing = dir.resolve("no-books");
        assertError("--corpus " + missing + ": no such directory", "bench", "--lm", "--corpus", missing.toString());
        Path books = Files.createDirectories(dir.resolve("books"));
        Files.writeString(books.resolve("a.txt"), "It is a truth universally acknowledged, that a single man in "
            + "possession of a good fortune, must be in want of a wife.\n", StandardCharsets.UTF_8);
        assertError("--texts: corpus " + books + " has 1 passages, fewer than 2", "bench", "--lm", "--corpus",
            books.toString(), "--lm-mode", "lm_score", "--texts", "2");
        Path empty = Files.createDirectories(dir.resolve("no-torch"));
        System.setProperty(TorchPeers.TARGET_PROPERTY, empty.toString());
        try {
            assertError("--peer torch: the torch peer is not built (" + empty.resolve("torch-classpath")
                + " is missing); examples/bin/spark-attention builds it, or run "
                + "mvn -B -q -Ptorch -pl examples/torch-peer -am package -DskipTests", "bench", "--lm",
                "--corpus", books.toString(), "--peer", "torch");
        } finally {
            System.clearProperty(TorchPeers.TARGET_PROPERTY);
        }
    }

    @Test
    @DisplayName("--lm-mode lm_memory --write-model: the 8,192-position model as a GPT-2 directory and its rows, "
        + "the books' bytes, for perplexity and generate")
    void writesTheLongRowModel() throws Exception {
        Path books = Files.createDirectories(dir.resolve("books"));
        Files.writeString(books.resolve("a.txt"), "Emma Woodhouse, handsome, clever, and rich. ".repeat(200),
            StandardCharsets.UTF_8);
        Path out = dir.resolve("long");
        CommandLineRun run = CommandLineRun.of("bench", "--lm", "--lm-mode", "lm_memory", "--corpus", books.toString(),
            "--write-model", out.toString());
        assertEquals(0, run.exitCode, run.err);
        GptConfig config = GptModelFiles.read(out.resolve("model")).config();
        assertEquals(List.of(4, 256, 4, 8192, 256), List.of(config.layers(), config.hidden(), config.heads(),
            config.positions(), config.vocabSize()));
        JsonNode row = JSON.readTree(Files.readString(out.resolve("score.jsonl"))).get("input_ids");
        JsonNode prompt = JSON.readTree(Files.readString(out.resolve("prompt.jsonl"))).get("input_ids");
        assertEquals(8192, row.size());
        assertEquals(8128, prompt.size());
        assertEquals('E', row.get(0).asInt());
        assertEquals(row.get(8127), prompt.get(8127));
        assertError("--write-model " + out + " already exists", "bench", "--lm", "--lm-mode", "lm_memory", "--corpus",
            books.toString(), "--write-model", out.toString());
        Path small = Files.createDirectories(dir.resolve("small"));
        Files.writeString(small.resolve("a.txt"), "Too short.", StandardCharsets.UTF_8);
        assertError("--lm-mode lm_memory: corpus " + small + " has 10 bytes, fewer than 8192", "bench", "--lm",
            "--lm-mode", "lm_memory", "--corpus", small.toString(), "--write-model", dir.resolve("x").toString());
    }
}
