package io.sparkattention.examples.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** One run of the command line in this JVM, with what it printed. */
final class CommandLineRun {

    final int exitCode;
    final String out;
    final String err;

    private CommandLineRun(int exitCode, String out, String err) {
        this.exitCode = exitCode;
        this.out = out;
        this.err = err;
    }

    static CommandLineRun of(String... args) {
        PrintStream savedOut = System.out, savedErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = SparkAttentionCli.run(args);
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        CommandLineRun run = new CommandLineRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        savedErr.print(run.err);
        return run;
    }

    /** The command's own error lines ("spark-attention ...: message"), without Spark's logging. */
    List<String> errorLines() {
        return Arrays.stream(err.split("\n")).filter(l -> l.startsWith("spark-attention")).collect(Collectors.toList());
    }

    /** {@code fine-tune}'s step lines: standard output's lines without its setup's progress ({"setup": ...}). */
    List<String> stepLines() {
        return outLines().stream().filter(l -> !l.startsWith("{\"setup\"")).collect(Collectors.toList());
    }

    /** Standard output's lines. */
    List<String> outLines() {
        return Arrays.stream(out.split("\n")).filter(l -> !l.isBlank()).collect(Collectors.toList());
    }
}
