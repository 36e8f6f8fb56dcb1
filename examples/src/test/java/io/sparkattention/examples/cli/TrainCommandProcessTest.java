package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code train} as a separate JVM, as the launcher runs it (the project's log4j2 configuration,
 * real System.exit): stdout carries the JSON lines and nothing else, stderr stays empty on
 * success and holds one line on bad input.
 */
class TrainCommandProcessTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("a real process prints exactly maxIter + 1 JSON lines, PyTorch's losses, and nothing on stderr")
    void stdoutIsTheLossLines() throws Exception {
        TrainFixture f = TrainFixture.open("cls_causal_last");
        Path input = f.writeInput(dir.resolve("in.jsonl"));
        Path initial = f.writeInitial(dir.resolve("initial.safetensors"));
        Path model = dir.resolve("model");
        CliProcess.Result run = CliProcess.run(dir, dir.resolve("scratch"), List.of(),
            f.args(input, initial, model, null).toArray(new String[0]));
        assertEquals(0, run.exitCode, run.toString());
        assertEquals(List.of(), run.err, "nothing on stderr");
        double[] expected = f.expectedLosses();
        assertEquals(expected.length, run.out.size(), "stdout: " + run.out);
        for (int i = 0; i < expected.length; i++) {
            JsonNode line = Cli.JSON.readTree(run.out.get(i));
            assertEquals(i, line.get("iteration").asInt());
            assertEquals(expected[i], line.get("loss").asDouble(), TrainCommandFixturesTest.TOLERANCE * expected[i],
                "loss " + i);
        }
        assertTrue(Files.isRegularFile(model.resolve(OutputKind.MARKER)));
    }

    @Test
    @DisplayName("bad input in a real process: exit 2, one line on stderr, nothing on stdout, no model directory")
    void badInputIsOneLine() throws Exception {
        Path input = dir.resolve("in.jsonl");
        Files.writeString(input, "{\"query\":[[1,0],[0,1]],\"label\":0}\n{\"query\":[[1,2]],\"label\":-2}\n");
        Path model = dir.resolve("model");
        CliProcess.Result run = CliProcess.run(dir, dir.resolve("scratch"), List.of(), "train", "--input",
            input.toString(), "--num-heads", "2", "--output", model.toString(), "--master", Cli.MASTER);
        assertEquals(2, run.exitCode, run.toString());
        assertEquals(List.of("spark-attention train: --input " + input + ": line 2: column label is -2.0, not a class "
                + "index (an integer >= 0)"),
            run.err);
        assertEquals(List.of(), run.out);
        assertFalse(Files.exists(model));
    }

    @Test
    @DisplayName("a real process refuses --output . and --export-pytorch .. with --overwrite, before Spark, "
        + "and the user's files and home directory stay as they were")
    void currentDirectoryAndHomeAreNeverOutputs() throws Exception {
        Path work = Files.createDirectories(dir.toRealPath().resolve("user/w"));
        Path home = Files.createDirectories(dir.toRealPath().resolve("homes/me"));
        Files.writeString(work.resolve("in.jsonl"), "{\"query\":[[1,0],[0,1]],\"label\":0}\n");
        Files.writeString(work.resolve("notes.txt"), "mine\n");
        Map<String, String> before = Trees.snapshot(dir.resolve("user"));
        Map<String, String> homeBefore = Trees.snapshot(dir.resolve("homes"));
        String[][] cases = {
            {"--output . (" + work + ") is the current directory", "--output", ".", "--export-pytorch", "s.safetensors"},
            {"--export-pytorch .. (" + work.getParent() + ") contains the current directory", "--output", "m",
                "--export-pytorch", ".."},
            {"--output " + home + " is the home directory", "--output", home.toString()},
        };
        for (String[] c : cases) {
            List<String> args = new ArrayList<>(List.of("train", "--input", "in.jsonl", "--num-heads", "1",
                "--overwrite", "--master", "not-a-master"));
            args.addAll(List.of(c).subList(1, c.length));
            CliProcess.Result run = CliProcess.run(work, dir.resolve("scratch"), List.of("-Duser.home=" + home),
                args.toArray(new String[0]));
            assertEquals(2, run.exitCode, run.toString());
            assertEquals(1, run.err.size(), "one line on stderr: " + run.err);
            assertTrue(run.err.get(0).startsWith("spark-attention train: ") && run.err.get(0).contains(c[0]),
                "'" + c[0] + "' missing from: " + run.err.get(0));
            assertEquals(List.of(), run.out);
            assertEquals(before, Trees.snapshot(dir.resolve("user")), "every file is left as it was");
            assertEquals(homeBefore, Trees.snapshot(dir.resolve("homes")), "the home directory is left as it was");
        }
    }
}
