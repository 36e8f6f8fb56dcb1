package io.sparkattention.examples.cli;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line as a separate JVM, as the launcher runs it (the project's log4j2 configuration,
 * real System.exit): Spark's own logging of a failed task must not reach stderr. The launcher
 * additionally filters the JVM's fixed incubator-module warning, which is filtered here too.
 */
class CommandProcessTest {

    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";

    @TempDir
    Path dir;

    /** Runs {@code SparkAttentionCli args...} in a new JVM; returns exit code and stderr lines. */
    private List<String> run(int expectedExit, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-") || arg.startsWith("-XX:") || arg.startsWith("--enable-native-access")
                || arg.startsWith("-Djdk.") || arg.startsWith("-Dio.netty")) {
                command.add(arg);
            }
        }
        command.add("-Xmx1g");
        Path log4j = Path.of(System.getProperty("user.dir")).resolve("../conf/log4j2.properties").normalize();
        command.add("-Dlog4j2.configurationFile=file:" + log4j);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SparkAttentionCli.class.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(dir.resolve("stdout.txt").toFile())
            .redirectError(dir.resolve("stderr.txt").toFile());
        builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process process = builder.start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the command finished");
        List<String> stderr = Files.readAllLines(dir.resolve("stderr.txt"), StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank() && !l.equals(INCUBATOR_WARNING)).collect(Collectors.toList());
        assertEquals(expectedExit, process.exitValue(), "exit code; stderr: " + stderr);
        return stderr;
    }

    @Test
    @DisplayName("a bad row: exit 2 and exactly one line on stderr; a good input: exit 0, nothing on stderr")
    void oneLineOnStderr() throws Exception {
        Path bad = dir.resolve("bad.jsonl"), good = dir.resolve("good.jsonl");
        Files.writeString(bad, "{\"query\":[[1,2],[3,4]]}\n{\"query\":[[1,2],[3]]}\n");
        Files.writeString(good, "{\"query\":[[1,2],[3,4]]}\n");
        List<String> stderr = run(2, "sdpa", "--input", bad.toString(), "--output", dir.resolve("o1.jsonl").toString(),
            "--master", "local[2]");
        assertEquals(List.of("spark-attention sdpa: row 1: column query row 1 has 1 values, expected 2 (as row 0)"),
            stderr);
        assertTrue(Files.notExists(dir.resolve("o1.jsonl")));
        assertEquals(List.of(), run(0, "sdpa", "--input", good.toString(), "--output",
            dir.resolve("o2.jsonl").toString(), "--master", "local[2]"));
        assertEquals(1, Files.readAllLines(dir.resolve("o2.jsonl")).size());
    }
}
