package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Runs the command line in this JVM and reads and writes its JSON lines. */
final class Cli {

    static final ObjectMapper JSON = new ObjectMapper();
    /** Every run uses a small local master (the test JVM's one SparkSession is shared). */
    static final String MASTER = "local[2]";

    /** Exit code and what the command printed on stderr. */
    static final class Result {
        final int exitCode;
        final String stderr;

        Result(int exitCode, String stderr) {
            this.exitCode = exitCode;
            this.stderr = stderr;
        }

        /** Non-empty stderr lines. */
        List<String> errorLines() {
            return stderr.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
        }

        @Override
        public String toString() {
            return "exit " + exitCode + ", stderr: " + stderr;
        }
    }

    private Cli() {
    }

    /** Runs {@code spark-attention args...} with stderr captured. */
    static synchronized Result run(String... args) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream err = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setErr(err);
            int code = SparkAttentionCli.run(args);
            err.flush();
            return new Result(code, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(original);
        }
    }

    /** Writes one JSON object per line. */
    static void writeJsonLines(Path file, List<? extends Object> rows) {
        StringBuilder out = new StringBuilder();
        for (Object row : rows) {
            try {
                out.append(row instanceof String ? (String) row : JSON.writeValueAsString(row)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try {
            Files.writeString(file, out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a JSON lines file, or every part file of a directory in name order. */
    static List<JsonNode> readJsonLines(Path path) {
        try {
            List<Path> files;
            if (Files.isDirectory(path)) {
                try (Stream<Path> list = Files.list(path)) {
                    files = list.filter(p -> p.getFileName().toString().startsWith("part-")).sorted()
                        .collect(Collectors.toList());
                }
            } else {
                files = List.of(path);
            }
            List<JsonNode> rows = new ArrayList<>();
            for (Path f : files) {
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        rows.add(JSON.readTree(line));
                    }
                }
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A JSON matrix (or stack of matrices) flattened row-major. */
    static float[] flatten(JsonNode node) {
        List<Float> values = new ArrayList<>();
        collect(node, values);
        float[] out = new float[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }

    private static void collect(JsonNode node, List<Float> into) {
        if (node.isArray()) {
            node.forEach(n -> collect(n, into));
        } else {
            into.add(node.floatValue());
        }
    }

    /** Names in {@code dir} other than the expected ones: leftovers such as temporary outputs. */
    static List<String> listNames(Path dir) {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
