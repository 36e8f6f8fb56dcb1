package io.sparkattention.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line as a separate JVM, as the launcher runs it (the project's log4j2 configuration,
 * real System.exit): Spark's own logging of a failed task must not reach stderr. The launcher
 * additionally filters the JVM's fixed incubator-module warning, which is filtered here too.
 */
class CommandProcessTest {

    @TempDir
    Path dir;

    /** Runs {@code SparkAttentionCli args...} in a new JVM; returns stderr lines. */
    private List<String> run(int expectedExit, String... args) throws IOException, InterruptedException {
        CliProcess.Result result = CliProcess.run(dir, dir.resolve("scratch"), List.of(), args);
        assertEquals(expectedExit, result.exitCode, "exit code; stderr: " + result.err);
        return result.err;
    }

    @Test
    @DisplayName("a bad row: exit 2 and exactly one line on stderr; a good input: exit 0, nothing on stderr")
    void oneLineOnStderr() throws Exception {
        Path bad = dir.resolve("bad.jsonl"), good = dir.resolve("good.jsonl");
        Files.writeString(bad, "{\"query\":[[1,2],[3,4]]}\n{\"query\":[[1,2],[3]]}\n");
        Files.writeString(good, "{\"query\":[[1,2],[3,4]]}\n");
        List<String> stderr = run(2, "sdpa", "--input", bad.toString(), "--output", dir.resolve("o1.jsonl").toString(),
            "--master", "local[2]");
        assertEquals(List.of("spark-attention sdpa: --input " + bad + ": line 2: column query row 1 has 1 values, "
                + "expected 2 (as row 0)"),
            stderr);
        assertTrue(Files.notExists(dir.resolve("o1.jsonl")));
        assertEquals(List.of(), run(0, "sdpa", "--input", good.toString(), "--output",
            dir.resolve("o2.jsonl").toString(), "--master", "local[2]"));
        assertEquals(1, Files.readAllLines(dir.resolve("o2.jsonl")).size());
    }
}
