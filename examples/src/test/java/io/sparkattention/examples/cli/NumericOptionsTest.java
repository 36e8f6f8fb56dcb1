package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Numeric options at the edges of what their validators accept: every accepted value is honoured
 * as the help says, and a value the stages would refuse is refused by its option's name.
 */
class NumericOptionsTest {

    @TempDir
    Path dir;

    private Path queries(int rows, int width) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < rows; i++) {
            b.append("{\"id\": ").append(i).append(", \"query\": [[");
            for (int j = 0; j < width; j++) {
                b.append(j == 0 ? "" : ", ").append((i * 7 + j * 3) % 5 - 2).append(".5");
            }
            b.append("], [");
            for (int j = 0; j < width; j++) {
                b.append(j == 0 ? "" : ", ").append((i + j) % 3).append(".0");
            }
            b.append("]]}\n");
        }
        Path in = dir.resolve("q" + rows + "x" + width + ".jsonl");
        Files.writeString(in, b, StandardCharsets.UTF_8);
        return in;
    }

    private static CommandLineRun run(String... args) {
        return CommandLineRun.of(args);
    }

    @Test
    @DisplayName("--block-size at its bound, 16384, gives the default's output; --partitions above the rows gives one "
        + "part file per row, in order")
    void boundsHonoured() throws IOException {
        Path in = queries(3, 4);
        Path byDefault = dir.resolve("default.jsonl"), widest = dir.resolve("widest.jsonl");
        assertEquals(0, run("sdpa", "--input", in.toString(), "--output", byDefault.toString(),
            "--master", Cli.MASTER).exitCode);
        CommandLineRun r = run("sdpa", "--input", in.toString(), "--output", widest.toString(), "--block-size", "16384",
            "--master", Cli.MASTER);
        assertEquals(0, r.exitCode, r.err);
        List<JsonNode> a = Cli.readJsonLines(byDefault), b = Cli.readJsonLines(widest);
        for (int i = 0; i < a.size(); i++) {
            float[] x = Cli.flatten(a.get(i).get("attn_output")), y = Cli.flatten(b.get(i).get("attn_output"));
            for (int k = 0; k < x.length; k++) {
                assertEquals(x[k], y[k], 1e-6f, "row " + i);
            }
        }

        Path split = dir.resolve("split");
        r = run("sdpa", "--input", in.toString(), "--output", split.toString(), "--partitions", "10",
            "--master", Cli.MASTER);
        assertEquals(0, r.exitCode, r.err);
        try (Stream<Path> files = Files.list(split)) {
            assertEquals(3, files.filter(p -> p.getFileName().toString().startsWith("part-")).count());
        }
        assertEquals(List.of(0, 1, 2), Cli.readJsonLines(split).stream().map(n -> n.get("id").asInt())
            .collect(Collectors.toList()));
    }

    @Test
    @DisplayName("--num-heads that does not divide the width: exit 2 naming --num-heads, nothing left behind")
    void headsThatDoNotDivide() throws IOException {
        Path in = queries(2, 4);
        Path out = dir.resolve("out.jsonl");
        CommandLineRun r = run("sdpa", "--input", in.toString(), "--output", out.toString(), "--num-heads", "3",
            "--master", Cli.MASTER);
        assertEquals(2, r.exitCode, r.err);
        assertEquals(1, r.errorLines().size(), r.err);
        assertTrue(r.errorLines().get(0).contains("--num-heads"), r.errorLines().get(0));
        assertTrue(Files.notExists(out));
    }
}
