package io.sparkattention.examples.cli;

import io.sparkattention.examples.bench.TorchPeers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.sparkattention.examples.cli.BenchRuns.assertError;

/**
 * {@code spark-attention bench --lm}'s option checks, all before any work (its contenders are
 * tested in examples/bench's LM tests and, for PyTorch 2.7.1, in examples/torch-peer).
 */
class LmBenchCommandTest {

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
}
