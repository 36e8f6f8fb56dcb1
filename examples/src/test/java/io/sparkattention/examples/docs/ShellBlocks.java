package io.sparkattention.examples.docs;

import io.sparkattention.examples.cli.SparkAttentionCli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A page's shell block run as a reader runs it from the repository's root, command by command: a
 * {@code examples/bin/spark-attention ...} line through the command line's entry point in this JVM (one
 * SparkSession for all, whatever master a command names), its relative paths taken from the page's working directory (which links
 * {@code examples/} and {@code spark-attention/} to the repository's); any other command — with its here-document
 * — through {@code bash} in that directory, {@code python3} being {@code /usr/bin/python3}. Every command must
 * exit 0.
 */
final class ShellBlocks {

    static final String LAUNCHER = "examples/bin/spark-attention";
    /** Options whose value is a file or directory. */
    private static final Set<String> PATH_OPTIONS = Set.of("--input", "--output", "--weights", "--model", "--onnx",
        "--tokenizer", "--safetensors", "--export-pytorch", "--initial-weights", "--html");

    private ShellBlocks() {
    }

    /** The block's commands: continuation lines joined, comments and blank lines dropped, here-documents kept. */
    static List<String> commands(String code) {
        List<String> out = new ArrayList<>();
        String[] lines = code.replace("\\\n", " ").split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int heredoc = line.indexOf("<<'");
            if (heredoc >= 0) {
                String end = line.substring(heredoc + 3, line.indexOf('\'', heredoc + 3));
                StringBuilder command = new StringBuilder(line);
                while (++i < lines.length && !lines[i].equals(end)) {
                    command.append('\n').append(lines[i]);
                }
                out.add(command.append('\n').append(end).toString());
            } else {
                out.add(line);
            }
        }
        return out;
    }

    static void run(DocPage.Block block, Path workDir) throws IOException, InterruptedException {
        for (String command : commands(block.code)) {
            if (command.startsWith(LAUNCHER + " ")) {
                List<String> args = words(command.substring(LAUNCHER.length()));
                for (String a : args) {
                    if (Set.of("|", ">", ">>", "<", "&&", "||", ";", "&").contains(a)) {
                        throw new AssertionError(block + ": a spark-attention line runs in-process and cannot use "
                            + "the shell's '" + a + "': " + command);
                    }
                }
                List<String> resolved = new ArrayList<>();
                for (int i = 0; i < args.size(); i++) {
                    String a = args.get(i);
                    boolean path = i > 0 && PATH_OPTIONS.contains(args.get(i - 1)) && !a.startsWith("/");
                    resolved.add(path ? workDir.resolve(a).toString() : a);
                }
                int code = SparkAttentionCli.run(resolved.toArray(new String[0]));
                if (code != 0) {
                    throw new AssertionError(block + ": exit code " + code + " from " + command);
                }
            } else {
                bash(block, command, workDir);
            }
        }
    }

    private static void bash(DocPage.Block block, String command, Path workDir)
        throws IOException, InterruptedException {
        Path bin = Files.createDirectories(workDir.resolve(".bin"));
        if (!Files.exists(bin.resolve("python3"))) {
            Files.createSymbolicLink(bin.resolve("python3"), Path.of("/usr/bin/python3"));
        }
        ProcessBuilder builder = new ProcessBuilder("bash", "-euo", "pipefail", "-c", command)
            .directory(workDir.toFile()).redirectErrorStream(true);
        builder.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        Process process = builder.start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError(block + ": timed out: " + command);
        }
        System.out.print(output);
        if (process.exitValue() != 0) {
            throw new AssertionError(block + ": exit code " + process.exitValue() + " from " + command + "\n" + output);
        }
    }

    /** A command line's words as a POSIX shell splits them (quotes, backslashes), up to a comment. */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    out.add(word.toString());
                    word = null;
                }
            } else if (c == '#' && word == null) {
                break;
            } else {
                word = word == null ? new StringBuilder() : word;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '\\' && i + 1 < line.length()) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed quote in: " + line);
        }
        if (word != null) {
            out.add(word.toString());
        }
        return out;
    }
}
