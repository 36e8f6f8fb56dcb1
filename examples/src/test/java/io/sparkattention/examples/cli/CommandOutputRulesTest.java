package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.testing.Fixtures;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output-safety rule against the run's inputs and the existing files, through the command
 * line with real files and directories: an output is never an input, never contains one, never
 * lies inside one; it is written only into an existing, writable directory; an existing output is
 * replaced only with --overwrite and only when this tool wrote it, whole, and a failed run leaves
 * the earlier output as it was. {@code --master not-a-master} shows that a refusal comes before
 * Spark starts.
 */
class CommandOutputRulesTest {

    private static final String NO_SPARK = "not-a-master";
    private static final String WEIGHTS = Fixtures.path("mha_self_basic").toString();  // E = 16, 4 heads

    @TempDir
    Path tmp;

    Path dir;
    Path in;

    @BeforeEach
    void input() throws IOException {
        dir = tmp.toRealPath();
        in = dir.resolve("in.jsonl");
        Files.writeString(in, "{\"query\":[[1,0],[0,1]]}\n{\"query\":[[1,2],[3,4],[5,6]]}\n");
    }

    private static Cli.Result sdpa(String input, String output, String master, String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", input, "--output", output, "--master", master));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    /** Exit 2, one line containing every fragment, and the directory exactly as it was. */
    private void assertRefused(Cli.Result result, Map<String, String> before, String... fragments) {
        assertEquals(2, result.exitCode, result.toString());
        List<String> lines = result.errorLines();
        assertEquals(1, lines.size(), "one line on stderr: " + result.stderr);
        for (String f : fragments) {
            assertTrue(lines.get(0).contains(f), "'" + f + "' missing from: " + lines.get(0));
        }
        assertEquals(before, Trees.snapshot(dir), "every file is left as it was");
    }

    @Test
    @DisplayName("the input as the output is refused, however it is spelled, even with --overwrite")
    void outputIsTheInput() throws IOException {
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(sdpa(in.toString(), in.toString(), NO_SPARK, "--overwrite"), before,
            "spark-attention sdpa: --output " + in + " is the input (--input " + in + ")");
        assertRefused(sdpa(in.toString(), dir + "/./sub/../in.jsonl", NO_SPARK, "--overwrite"), before, "is the input");
        Files.createSymbolicLink(dir.resolve("alias"), dir);
        before = Trees.snapshot(dir);
        assertRefused(sdpa(in.toString(), dir.resolve("alias/in.jsonl").toString(), NO_SPARK, "--overwrite"), before,
            "is the input");
        Files.createSymbolicLink(dir.resolve("link.jsonl"), in);
        before = Trees.snapshot(dir);
        assertRefused(sdpa(dir.resolve("link.jsonl").toString(), in.toString(), NO_SPARK, "--overwrite"), before,
            "is the input");
        assertRefused(Cli.run("apply", "--weights", WEIGHTS, "--num-heads", "4", "--input", in.toString(), "--output",
            WEIGHTS, "--overwrite", "--master", NO_SPARK), before, "is the input (--weights " + WEIGHTS + ")");
    }

    @Test
    @DisplayName("an output that contains the input, or lies inside an input directory, is refused")
    void outputAroundOrInsideTheInput() throws IOException {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("a.jsonl"), "{\"query\":[[1,0]]}\n");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(sdpa(data.resolve("a.jsonl").toString(), data.toString(), NO_SPARK, "--overwrite"), before,
            "--output " + data + " contains the input (--input " + data.resolve("a.jsonl") + ")");
        assertRefused(sdpa(data.toString(), data.resolve("out").toString(), NO_SPARK), before,
            "--output " + data.resolve("out") + " lies inside the input (--input " + data + ")");
        assertRefused(sdpa(data.toString(), data.resolve("out.jsonl").toString(), NO_SPARK), before,
            "lies inside the input");
    }

    @Test
    @DisplayName("--overwrite does not replace a directory or a file this tool did not write, and says why")
    void overwriteOnlyOwnOutputs() throws IOException {
        Path mine = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(mine.resolve("notes.txt"), "mine\n");
        Files.writeString(dir.resolve("mine.jsonl"), "{\"note\":\"mine\"}\n");
        Files.writeString(dir.resolve("old.jsonl"), "old\n");
        Path half = Files.createDirectories(dir.resolve("half"));
        Files.writeString(half.resolve(OutputKind.MARKER), "{}");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(sdpa(in.toString(), mine.toString(), NO_SPARK, "--overwrite"), before,
            "--output " + mine + " exists and is not replaced: spark-attention did not write it (it has no "
                + ".spark-attention-output marker file); --overwrite replaces only an earlier output of spark-attention");
        assertRefused(sdpa(in.toString(), dir.resolve("mine.jsonl").toString(), NO_SPARK, "--overwrite"), before,
            "is not replaced: its first line is not a JSON record with the column attn_output");
        assertRefused(sdpa(in.toString(), dir.resolve("old.jsonl").toString(), NO_SPARK, "--overwrite"), before,
            "is not replaced");
        assertRefused(sdpa(in.toString(), half.toString(), NO_SPARK, "--overwrite"), before, "has no _SUCCESS file");
        assertRefused(sdpa(in.toString(), mine.resolve("notes.txt").toString(), NO_SPARK, "--overwrite",
            "--output-format", "parquet"), before, "it is a file, and this output is a directory");
        assertRefused(sdpa(in.toString(), mine.toString(), NO_SPARK), before,
            "--output " + mine + " already exists (--overwrite replaces an earlier output of spark-attention)");
    }

    @Test
    @DisplayName("an output whose parent is missing, a file, or not writable is refused before any work")
    void unwritableLocations() throws IOException {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(sdpa(in.toString(), file.resolve("out.jsonl").toString(), NO_SPARK), before,
            "--output " + file.resolve("out.jsonl") + ": " + file + " is a file, not a directory");
        assertRefused(sdpa(in.toString(), file.resolve("sub/out").toString(), NO_SPARK), before,
            file + " is a file, not a directory");
        assertRefused(sdpa(in.toString(), dir.resolve("missing/out.jsonl").toString(), NO_SPARK), before,
            "--output " + dir.resolve("missing/out.jsonl") + ": directory " + dir.resolve("missing")
                + " does not exist (create it first)");
        assertRefused(sdpa(in.toString(), "/proc/spark-attention-out.jsonl", NO_SPARK), before,
            "--output /proc/spark-attention-out.jsonl: cannot create files in directory /proc");
        assertRefused(sdpa(in.toString(), "/proc/self/out", NO_SPARK), before, "cannot create files in directory");
        Files.createSymbolicLink(dir.resolve("out-link"), Files.createDirectories(dir.resolve("target")));
        before = Trees.snapshot(dir);
        assertRefused(sdpa(in.toString(), dir.resolve("out-link").toString(), NO_SPARK, "--overwrite"), before,
            "is a symbolic link");
    }

    @Test
    @DisplayName("an earlier output is replaced whole with --overwrite: a directory, an empty directory, a JSON lines file")
    void replacesEarlierOutputs() throws IOException {
        Path out = dir.resolve("out");
        assertEquals(0, sdpa(in.toString(), out.toString(), Cli.MASTER).exitCode);
        assertTrue(Files.isRegularFile(out.resolve(OutputKind.MARKER)), "the output directory is marked");
        assertTrue(Files.isRegularFile(out.resolve(OutputKind.SPARK_SUCCESS)));
        Files.writeString(out.resolve("part-99999-stale.json"), "{\"query\":[[9]],\"attn_output\":[[9]]}\n");
        Files.writeString(dir.resolve("one.jsonl"), "{\"query\":[[2,0]]}\n");
        Cli.Result replaced = sdpa(dir.resolve("one.jsonl").toString(), out.toString(), Cli.MASTER, "--overwrite");
        assertEquals(0, replaced.exitCode, replaced.toString());
        assertTrue(replaced.stderr.contains("spark-attention sdpa: --overwrite: replacing --output " + out + ", with 1 "
            + "file spark-attention did not write in it: part-99999-stale.json"), "says what goes: " + replaced);
        assertFalse(Files.exists(out.resolve("part-99999-stale.json")), "nothing of the earlier output is left");
        Cli.Result again = sdpa(dir.resolve("one.jsonl").toString(), out.toString(), Cli.MASTER, "--overwrite");
        assertTrue(again.stderr.contains("--overwrite: replacing --output " + out + " (an earlier output)"),
            "only files it wrote: " + again);
        assertEquals(1, Cli.readJsonLines(out).size());

        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertEquals(2, sdpa(in.toString(), empty.toString(), Cli.MASTER).exitCode, "an existing one needs --overwrite");
        assertEquals(0, sdpa(in.toString(), empty.toString(), Cli.MASTER, "--overwrite").exitCode,
            "an empty directory holds nothing to lose");
        assertEquals(2, Cli.readJsonLines(empty).size());

        Path file = dir.resolve("out.jsonl");
        assertEquals(0, sdpa(in.toString(), file.toString(), Cli.MASTER).exitCode);
        assertEquals(2, Cli.readJsonLines(file).size());
        Cli.Result replacedFile = sdpa(dir.resolve("one.jsonl").toString(), file.toString(), Cli.MASTER, "--overwrite");
        assertEquals(0, replacedFile.exitCode);
        assertTrue(replacedFile.stderr.contains("--overwrite: replacing --output " + file), replacedFile.toString());
        assertEquals(1, Cli.readJsonLines(file).size());
        assertEquals(List.of("empty", "in.jsonl", "one.jsonl", "out", "out.jsonl"), Cli.listNames(dir),
            "no hidden sibling left");
    }

    @Test
    @DisplayName("a run that fails on a bad row after Spark started leaves the earlier output exactly as it was")
    void failedRunKeepsEarlierOutput() throws IOException {
        Path out = dir.resolve("out"), file = dir.resolve("out.jsonl");
        assertEquals(0, sdpa(in.toString(), out.toString(), Cli.MASTER).exitCode);
        assertEquals(0, sdpa(in.toString(), file.toString(), Cli.MASTER).exitCode);
        Path bad = Files.writeString(dir.resolve("bad.jsonl"), "{\"query\":[[1,2],[3,4]]}\n{\"query\":[[1,2],[3]]}\n");
        Map<String, String> before = Trees.snapshot(dir);
        assertRefused(sdpa(bad.toString(), out.toString(), Cli.MASTER, "--overwrite"), before,
            "--input " + bad + ": line 2: column query row 1 has 1 values, expected 2");
        assertRefused(sdpa(bad.toString(), file.toString(), Cli.MASTER, "--overwrite"), before, "line 2");
    }
}
