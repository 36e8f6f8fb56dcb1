package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.PngMark;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention scaling} with tiny sizes: every point runs in a child JVM. */
class ScalingCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void measuresBothImplementationsAndDrawsThePlot(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("scaling.png");
        CommandLineRun run = CommandLineRun.of("scaling", "--seq-len", "64,1024", "--head-dim", "16", "--repeat", "1",
            "--warmup-ms", "50", "--output", png.toString());
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> points = json(run);
        assertEquals(4, points.size(), run.out);
        for (JsonNode p : points) {
            assertEquals("ok", p.get("status").asText(), p.toString());
            assertTrue(p.get("median_ms").asDouble() > 0, p.toString());
            assertTrue(p.get("peak_heap_mb").asDouble() > 0, p.toString());
        }
        // At n = 1024, d = 16 the naive 1024×1024 scores (4 MiB) outweigh the tiled kernel's scratch (0.4 MiB)
        // many times over: a margin no JIT warm-up garbage in the measured pass can close.
        JsonNode tiled = points.get(2), naive = points.get(3);
        assertEquals("tiled", tiled.get("impl").asText());
        assertEquals("naive", naive.get("impl").asText());
        assertTrue(naive.get("peak_heap_mb").asDouble() > tiled.get("peak_heap_mb").asDouble(), run.out);
        assertTrue(naive.get("allocated_mb").asDouble() >= 4, run.out);
        assertNotNull(ImageIO.read(png.toFile()), "plot is a PNG");
        assertTrue(PngMark.isMarked(Files.readAllBytes(png)), "the plot is marked as spark-attention's");
    }

    /** Naive points that cannot fit the heap are reported, never fatal. */
    @Test
    void naiveAttentionStopsGracefullyAtTheHeap(@TempDir Path dir) throws Exception {
        // 4096² floats = 64 MiB of scores: more than a 32 MiB heap, known before trying.
        CommandLineRun skipped = CommandLineRun.of("scaling", "--seq-len", "4096", "--head-dim", "8", "--impl", "naive",
            "--heap", "32m", "--repeat", "1", "--warmup-ms", "0", "--json");
        assertEquals(0, skipped.exitCode, skipped.err);
        JsonNode p = json(skipped).get(0);
        assertEquals("skipped", p.get("status").asText(), p.toString());
        assertTrue(p.get("reason").asText().contains("MiB"), p.toString());

        // 3500² floats = 47 MiB: under a 64 MiB heap's total, over any of its generations: a real OutOfMemoryError.
        CommandLineRun oom = CommandLineRun.of("scaling", "--seq-len", "3500", "--head-dim", "8", "--impl", "naive",
            "--heap", "64m", "--repeat", "1", "--warmup-ms", "0", "--json");
        assertEquals(0, oom.exitCode, oom.err);
        JsonNode q = json(oom).get(0);
        assertEquals("out_of_memory", q.get("status").asText(), q.toString());
        try (var files = Files.list(Path.of("."))) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().equals(ScalingCommand.DEFAULT_OUTPUT)),
                "--json draws no plot");
        }
    }

    @Test
    void badOptionsEndWithExitCode2() {
        assertBadInput("--heap must look like 512m or 2g, got 'lots'", "--heap", "lots");
        assertBadInput("--impl: expected one of tiled, naive, got 'fast'", "--impl", "fast");
        assertBadInput("--seq-len must be >= 1, got 0", "--seq-len", "0");
        assertBadInput("--repeat must be >= 1, got 0", "--repeat", "0");
        assertBadInput("--output /no/such/dir/x.png: directory /no/such/dir does not exist (create it first)",
            "--output", "/no/such/dir/x.png");
    }

    @Test
    @DisplayName("an existing picture is replaced only with --overwrite, and only one spark-attention drew")
    void overwritesOnlyItsOwnPlot(@TempDir Path dir) throws Exception {
        Path photo = Files.write(dir.resolve("photo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        assertBadInput("--output " + photo + " already exists (--overwrite replaces an earlier output of "
            + "spark-attention)", "--seq-len", "8", "--output", photo.toString());
        assertBadInput("--output " + photo + " exists and is not replaced: it is not a PNG written by spark-attention "
            + "(no 'Software: spark-attention' text chunk); --overwrite replaces only an earlier output of "
            + "spark-attention", "--seq-len", "8", "--output", photo.toString(), "--overwrite");
        assertEquals(4, Files.size(photo), "the user's file is kept");
    }

    private static void assertBadInput(String expected, String... args) {
        List<String> all = new ArrayList<>(List.of("scaling"));
        all.addAll(List.of(args));
        CommandLineRun run = CommandLineRun.of(all.toArray(new String[0]));
        assertEquals(2, run.exitCode, run.err);
        assertEquals(List.of("spark-attention scaling: " + expected), run.errorLines());
    }

    private static List<JsonNode> json(CommandLineRun run) throws Exception {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : run.outLines()) {
            nodes.add(JSON.readTree(line));
        }
        return nodes;
    }
}
