package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code spark-attention bench} in this JVM, as the bench tests run it: its JSON lines, or its one error line. */
final class BenchRuns {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BenchRuns() {
    }

    /** Runs the command, asserts exit 0 and returns its JSON lines. */
    static List<JsonNode> lines(String... args) throws Exception {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : run.outLines()) {
            if (line.startsWith("{")) {
                nodes.add(JSON.readTree(line));
            }
        }
        return nodes;
    }

    /** Runs the command and asserts exit 2 with {@code message} as bench's one error line. */
    static void assertError(String message, String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(2, run.exitCode, run.err);
        assertEquals(List.of("spark-attention bench: " + message), run.errorLines());
    }
}
