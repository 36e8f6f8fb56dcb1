package io.sparkattention.examples.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The command line as a separate JVM, as the launcher runs it (the project's log4j2 configuration,
 * real System.exit, its own working directory). The launcher filters the JVM's fixed
 * incubator-module warning from stderr, which is filtered here too.
 */
final class CliProcess {

    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";

    /** Exit code and what the process printed. */
    static final class Result {
        final int exitCode;
        final List<String> out;
        final List<String> err;

        Result(int exitCode, List<String> out, List<String> err) {
            this.exitCode = exitCode;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exitCode + ", stderr: " + err;
        }
    }

    private CliProcess() {
    }

    /**
     * Runs {@code spark-attention args...} in a new JVM.
     *
     * @param cwd      the process's working directory
     * @param scratch  a directory for its captured stdout and stderr (not {@code cwd}, whose files are checked)
     * @param jvmFlags extra JVM flags, e.g. {@code -Duser.home=...}
     */
    static Result run(Path cwd, Path scratch, List<String> jvmFlags, String... args)
        throws IOException, InterruptedException {
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
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SparkAttentionCli.class.getName());
        command.addAll(List.of(args));
        Files.createDirectories(scratch);
        Path stdout = Files.createTempFile(scratch, "stdout", ".txt");
        Path stderr = Files.createTempFile(scratch, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile())
            .redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process process = builder.start();
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the command did not finish in 180 s: " + List.of(args));
        }
        List<String> err = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank() && !l.equals(INCUBATOR_WARNING)).collect(Collectors.toList());
        List<String> out = Files.readAllLines(stdout, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank()).collect(Collectors.toList());
        return new Result(process.exitValue(), out, err);
    }
}
