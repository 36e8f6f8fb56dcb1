package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.io.SafeTensors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output-safety rule for {@code train}'s two outputs, the model directory ({@code --output})
 * and the state_dict ({@code --export-pytorch}): never the current directory, an input or the
 * initial weights, nor a path holding them; the export never inside the model directory; an
 * existing output replaced only with {@code --overwrite} and only when {@code train} wrote it;
 * and a run that fails, before or after Spark starts, leaves every file as it was.
 */
class TrainCommandOutputRulesTest {

    /** A master that cannot start: a refusal with it shows the check came before Spark. */
    private static final String NO_SPARK = "not-a-master";

    @TempDir
    Path tmp;

    Path dir;
    Path in;
    Path model;
    Path export;

    @BeforeEach
    void input() throws IOException {
        dir = tmp.toRealPath();
        in = dir.resolve("in.jsonl");
        Files.writeString(in, "{\"query\":[[1,0],[0,1]],\"label\":0}\n{\"query\":[[1,2],[3,4],[5,6]],\"label\":1}\n");
        model = dir.resolve("model");
        export = dir.resolve("state.safetensors");
    }

    private static CommandLineRun train(String input, String output, String master, String... extra) {
        List<String> args = new ArrayList<>(List.of("train", "--input", input, "--num-heads", "2", "--output", output,
            "--max-iter", "2", "--master", master));
        args.addAll(List.of(extra));
        return CommandLineRun.of(args.toArray(new String[0]));
    }

    /** Exit 2, one line containing every fragment, nothing on stdout, and the directory exactly as it was. */
    private void assertRefused(CommandLineRun run, Map<String, String> before, String... fragments) {
        assertEquals(2, run.exitCode, run.err);
        List<String> lines = run.errorLines();
        assertEquals(1, lines.size(), "one line on stderr: " + run.err);
        for (String f : fragments) {
            assertTrue(lines.get(0).contains(f), "'" + f + "' missing from: " + lines.get(0));
        }
        assertEquals("", run.out, "nothing on stdout");
        assertEquals(before, Trees.snapshot(dir), "every file is left as it was");
    }

    @Test
    @DisplayName("--output is never the current directory, the input, a directory holding it, or the initial weights")
    void modelDirectoryStaysClearOfInputs() {
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(train(in.toString(), ".", NO_SPARK), before, "--output . ", "is the current directory");
        assertRefused(train(in.toString(), in.toString(), NO_SPARK), before, "is the input (--input");
        assertRefused(train(in.toString(), dir.toString(), NO_SPARK), before, "contains the input (--input");
        assertRefused(train(in.toString(), in.toString(), NO_SPARK, "--initial-weights", in.toString()), before,
            "is the input");
    }

    @Test
    @DisplayName("--export-pytorch is never the input, the initial weights, or a file inside --output")
    void exportStaysClearOfInputsAndTheModel() throws IOException {
        Path weights = dir.resolve("initial.safetensors");
        Files.writeString(weights, "checked after the outputs");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--export-pytorch", in.toString()), before,
            "--export-pytorch", "is the input (--input");
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--export-pytorch", weights.toString(),
            "--initial-weights", weights.toString()), before, "--export-pytorch", "is the input (--initial-weights");
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--export-pytorch",
            model.resolve("state.safetensors").toString()), before, "--export-pytorch", "directory", "does not exist");
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--export-pytorch", model.toString()), before,
            "--export-pytorch", "is the same path as --output");
        assertRefused(train(in.toString(), dir.resolve("out").toString(), NO_SPARK, "--export-pytorch",
            dir.resolve("out/state.safetensors").toString()), before, "--export-pytorch", "does not exist");
    }

    @Test
    @DisplayName("an existing directory or file of the user's is never replaced, with or without --overwrite")
    void userFilesAreNeverReplaced() throws IOException {
        Files.createDirectory(model);
        Files.writeString(model.resolve("notes.txt"), "mine");
        Files.writeString(export, "mine too");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(train(in.toString(), model.toString(), NO_SPARK), before, "--output", "already exists");
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--overwrite"), before,
            "spark-attention did not write it");
        Path fresh = dir.resolve("fresh-model");
        assertRefused(train(in.toString(), fresh.toString(), NO_SPARK, "--export-pytorch", export.toString()), before,
            "--export-pytorch", "already exists");
        assertRefused(train(in.toString(), fresh.toString(), NO_SPARK, "--export-pytorch", export.toString(),
            "--overwrite"), before, "--export-pytorch", "not a safetensors file exported by spark-attention");
    }

    @Test
    @DisplayName("--overwrite replaces an earlier model directory and export of train, whole, leaving no temporary")
    void overwriteReplacesEarlierOutputs() throws IOException {
        CommandLineRun first = train(in.toString(), model.toString(), Cli.MASTER, "--export-pytorch", export.toString());
        assertEquals(0, first.exitCode, first.err);
        Files.writeString(model.resolve("stale.txt"), "from an earlier run");
        float[] earlier = SafeTensors.read(export).floats("classifier.weight");

        CommandLineRun again = CommandLineRun.of("train", "--input", in.toString(), "--num-heads", "2", "--output",
            model.toString(), "--max-iter", "5", "--step-size", "0.1", "--master", Cli.MASTER, "--export-pytorch",
            export.toString(), "--overwrite");
        assertEquals(0, again.exitCode, again.err);
        assertEquals(6, again.outLines().size(), "max-iter 5: six losses");
        assertFalse(Files.exists(model.resolve("stale.txt")), "the earlier directory was replaced as a whole");
        assertTrue(Files.isRegularFile(model.resolve(OutputKind.MARKER)));
        assertNotEquals(earlier[0], SafeTensors.read(export).floats("classifier.weight")[0], "a new export");
        assertEquals(List.of("in.jsonl", "model", "state.safetensors"), Cli.listNames(dir), "no temporary left");
    }

    @Test
    @DisplayName("bad input found once Spark runs, or an export inside the model directory, leaves the earlier outputs as they were")
    void failedRunKeepsEarlierOutputs() throws IOException {
        CommandLineRun first = train(in.toString(), model.toString(), Cli.MASTER, "--export-pytorch", export.toString());
        assertEquals(0, first.exitCode, first.err);
        Path bad = dir.resolve("bad.jsonl");
        Files.writeString(bad, "{\"query\":[[1,0]],\"label\":0.5}\n");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(train(bad.toString(), model.toString(), Cli.MASTER, "--export-pytorch", export.toString(),
            "--overwrite"), before, bad + ": line 1: column label is 0.5");
        assertRefused(train(in.toString(), model.toString(), NO_SPARK, "--export-pytorch",
            model.resolve("state.safetensors").toString(), "--overwrite"), before, "lies in --output");
    }
}
