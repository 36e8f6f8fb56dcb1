package io.sparkattention.examples.cli;

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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output-safety rule for the places a process's own situation defines: its working directory,
 * the ancestors of it, the home directory, the filesystem root. Every command is run as a real
 * process inside a directory of the user's files; a refused run exits 2 with one line naming the
 * problem, and every file is still there, unchanged. {@code --master not-a-master} shows that the
 * refusal comes before Spark starts (Spark would fail on that master).
 */
class CommandOutputSafetyProcessTest {

    private static final String NO_SPARK = "not-a-master";

    @TempDir
    Path root;

    Path work;
    Path scratch;
    Path home;

    @BeforeEach
    void userFiles() throws IOException {
        root = root.toRealPath();
        work = Files.createDirectories(root.resolve("user/w"));
        Files.writeString(work.resolve("qkv.jsonl"), "{\"query\":[[1,0],[0,1]]}\n");
        Files.writeString(work.resolve("notes.txt"), "mine\n");
        Files.createDirectories(work.resolve("corpus"));
        Files.writeString(work.resolve("corpus/book.txt"), "It is a truth universally acknowledged.\n");
        scratch = Files.createDirectories(root.resolve("scratch"));
        home = Files.createDirectories(root.resolve("homes/me"));
    }

    private CliProcess.Result run(String... args) throws IOException, InterruptedException {
        return CliProcess.run(work, scratch, List.of("-Duser.home=" + home), args);
    }

    /** Exit 2, one stderr line starting with the command's prefix and containing the fragment; nothing changed. */
    private void assertRefused(String fragment, String... args) throws IOException, InterruptedException {
        Map<String, String> before = Trees.snapshot(root.resolve("user"));
        Map<String, String> homeBefore = Trees.snapshot(root.resolve("homes"));
        CliProcess.Result result = run(args);
        assertEquals(2, result.exitCode, result.toString());
        assertEquals(1, result.err.size(), "one line on stderr: " + result.err);
        String line = result.err.get(0);
        assertTrue(line.startsWith("spark-attention " + args[0] + ": ") && line.contains(fragment),
            "'" + fragment + "' missing from: " + line);
        assertEquals(before, Trees.snapshot(root.resolve("user")), "every file is left as it was");
        assertEquals(homeBefore, Trees.snapshot(root.resolve("homes")), "the home directory is left as it was");
    }

    private static String[] sdpa(String output, String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", "qkv.jsonl", "--output", output,
            "--master", NO_SPARK));
        args.addAll(List.of(extra));
        return args.toArray(new String[0]);
    }

    @Test
    @DisplayName("sdpa --output . --overwrite in a directory leaves every file, exits 2 and names the directory")
    void currentDirectoryWithOverwrite() throws Exception {
        assertRefused("--output . (" + work + ") is the current directory", sdpa(".", "--overwrite"));
        assertRefused("--output . (" + work + ") is the current directory", sdpa("."));
        assertRefused("--output ./ (" + work + ") is the current directory", sdpa("./", "--overwrite"));
        assertRefused("is the current directory", sdpa("../w", "--overwrite"));
        assertRefused("--output " + work + " is the current directory", sdpa(work.toString(), "--overwrite"));
    }

    @Test
    @DisplayName("a failing run (missing weights) with --output . --overwrite deletes nothing either")
    void currentDirectoryWithBadWeights() throws Exception {
        assertRefused("is the current directory", "apply", "--weights", "missing.safetensors", "--num-heads", "1",
            "--input", "qkv.jsonl", "--output", ".", "--overwrite", "--master", NO_SPARK);
    }

    @Test
    @DisplayName("an ancestor of the current directory, the home directory or its ancestor, and / are refused")
    void ancestorsHomeAndRoot() throws Exception {
        assertRefused("--output .. (" + work.getParent() + ") contains the current directory", sdpa("..", "--overwrite"));
        assertRefused("contains the current directory", sdpa("../..", "--overwrite"));
        assertRefused("--output " + home + " is the home directory", sdpa(home.toString(), "--overwrite"));
        assertRefused("--output " + home.getParent() + " contains the home directory",
            sdpa(home.getParent().toString(), "--overwrite"));
        assertRefused("--output / is a filesystem root", sdpa("/", "--overwrite"));
    }

    @Test
    @DisplayName("a symbolic link to the current directory is refused as the directory itself")
    void linkToCurrentDirectory() throws Exception {
        Files.createSymbolicLink(root.resolve("user/link"), work);
        assertRefused("is the current directory", sdpa("../link/.", "--overwrite"));
        assertRefused("--output ../link (" + root.resolve("user/link") + ") is a symbolic link", sdpa("../link", "--overwrite"));
    }

    @Test
    @DisplayName("every command that writes applies the rule: apply, heatmap, demo, scaling")
    void everyCommand() throws Exception {
        assertRefused("is the current directory", "apply", "--weights", "w.safetensors", "--num-heads", "1",
            "--input", "qkv.jsonl", "--output", ".", "--overwrite", "--master", NO_SPARK);
        assertRefused("--output . (" + work + ") is the current directory", "heatmap", "--input", "qkv.jsonl",
            "--row", "0", "--output", ".", "--overwrite", "--master", NO_SPARK);
        assertRefused("--html .. (" + work.getParent() + ") contains the current directory", "heatmap", "--input",
            "qkv.jsonl", "--row", "0", "--output", "p.png", "--html", "..", "--overwrite", "--master", NO_SPARK);
        assertRefused("is the current directory", "demo", "--corpus", "corpus", "--output", ".", "--overwrite",
            "--master", NO_SPARK);
        assertRefused("contains the current directory", "demo", "--corpus", "corpus", "--output", "..",
            "--overwrite", "--master", NO_SPARK);
        assertRefused("--output . (" + work + ") is the current directory", "scaling", "--seq-len", "8",
            "--output", ".", "--overwrite");
    }
}
