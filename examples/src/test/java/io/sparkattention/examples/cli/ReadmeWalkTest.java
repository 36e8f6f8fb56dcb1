package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's walk "From train to predict to PyTorch", as written: its {@code train} and
 * {@code predict} command lines are read from README.md and run on the small data set they name
 * (outputs in a temporary directory), and its Python snippet runs against them where Python has
 * PyTorch and the reference module is present (skipped, and said so, where not).
 */
class ReadmeWalkTest {

    /** Options whose value is an output of the walk, written in the working directory. */
    private static final Set<String> OUTPUTS = Set.of("--output", "--export-pytorch", "--model");

    @TempDir
    Path dir;

    private static Path root() {
        Path here = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        return Files.isRegularFile(here.resolve("README.md")) && Files.isDirectory(here.resolve("examples")) ? here
            : here.getParent();
    }

    /** The walk's section of README.md. */
    private static String walk() throws IOException {
        String readme = Files.readString(root().resolve("docs/training.md"));
        int start = readme.indexOf("## From `train` to `predict` to PyTorch");
        assertTrue(start >= 0, "docs/training.md has the walk");
        int end = readme.indexOf("\n## ", start);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    /** The {@code spark-attention} command lines of the walk's first block, continuations joined. */
    private static List<List<String>> commands(String walk) {
        String block = walk.substring(walk.indexOf("```bash") + 7, walk.indexOf("```", walk.indexOf("```bash") + 7));
        List<List<String>> out = new ArrayList<>();
        for (String line : block.replace("\\\n", " ").split("\n")) {
            if (line.startsWith("examples/bin/spark-attention ")) {
                out.add(List.of(line.substring("examples/bin/spark-attention ".length()).trim().split("\\s+")));
            }
        }
        return out;
    }

    /** A README command line with its inputs from the project and its outputs in {@code dir}. */
    private List<String> here(List<String> command) {
        List<String> args = new ArrayList<>();
        for (int i = 0; i < command.size(); i++) {
            String a = command.get(i);
            String previous = i == 0 ? "" : command.get(i - 1);
            args.add(OUTPUTS.contains(previous) ? dir.resolve(a).toString()
                : previous.equals("--input") ? root().resolve(a).toString() : a);
        }
        args.addAll(List.of("--master", Cli.MASTER));
        return args;
    }

    @Test
    @DisplayName("train, then predict on the held-out rows, as the README writes them; then PyTorch on the export")
    void walkAsWritten() throws Exception {
        String walk = walk();
        List<List<String>> commands = commands(walk);
        assertEquals(List.of("train", "predict"), List.of(commands.get(0).get(0), commands.get(1).get(0)));

        CommandLineRun train = CommandLineRun.of(here(commands.get(0)).toArray(new String[0]));
        assertEquals(0, train.exitCode, train.err);
        List<String> steps = train.outLines();
        double first = Cli.JSON.readTree(steps.get(0)).get("loss").asDouble();
        double last = Cli.JSON.readTree(steps.get(steps.size() - 1)).get("loss").asDouble();
        assertTrue(last < 0.5 * first, "the loss falls: " + first + " -> " + last);

        CommandLineRun predict = CommandLineRun.of(here(commands.get(1)).toArray(new String[0]));
        assertEquals(0, predict.exitCode, predict.err);
        List<JsonNode> rows = Cli.readJsonLines(dir.resolve("seq-predictions.jsonl"));
        assertEquals(30, rows.size());
        int right = 0;
        for (JsonNode row : rows) {
            right += row.get("prediction").asInt() == row.get("label").asInt() ? 1 : 0;
            assertTrue(row.has("id") && row.has("query") && row.get("rawPrediction").isArray(), row.toString());
        }
        assertTrue(right >= 24, right + " of 30 held-out rows predicted right");

        pytorch(walk);
    }

    /** Runs the walk's Python snippet in {@code dir}, where Python, PyTorch and the module are there. */
    private void pytorch(String walk) throws IOException, InterruptedException {
        Path module = root().resolve("examples/python/spark_attention_reference.py");
        Assumptions.assumeTrue(Files.isRegularFile(module), "skipped: no " + module);
        // The python3 on the PATH, else Debian's, whose python3-torch package installs PyTorch.
        String python = null;
        for (String candidate : List.of("python3", "/usr/bin/python3")) {
            if (python == null && run(List.of(candidate, "-c", "import torch"), "", null).exitCode == 0) {
                python = candidate;
            }
        }
        Assumptions.assumeTrue(python != null, "skipped: no python3 with torch (Debian: python3-torch)");
        Matcher snippet = Pattern.compile("python3 - <<'EOF'\n(.*?)\nEOF", Pattern.DOTALL).matcher(walk);
        assertTrue(snippet.find(), "the walk's Python snippet");
        Result result = run(List.of(python, "-"), snippet.group(1), root().resolve("examples/python"));
        assertEquals(0, result.exitCode, result.output);
        assertTrue(result.output.contains("PyTorch's logits match predict's rawPrediction"), result.output);
    }

    private static final class Result {
        final int exitCode;
        final String output;

        Result(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }
    }

    private Result run(List<String> command, String stdin, Path pythonPath) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        if (pythonPath != null) {
            builder.environment().put("PYTHONPATH", pythonPath.toString());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        }
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            return new Result(-1, "timed out: " + output);
        }
        return new Result(process.exitValue(), output);
    }
}
