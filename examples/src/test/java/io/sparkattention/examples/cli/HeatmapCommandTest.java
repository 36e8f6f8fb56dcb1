package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.examples.common.PngMark;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention heatmap} on small JSON-lines inputs (the test JVM's one Spark session). */
class HeatmapCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void drawsTheRowAsPngAndHtml(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("rows.jsonl");
        Files.write(input, List.of(line(0, 2, 4), line(1, 2, 5)));
        Path png = dir.resolve("row1.png"), html = dir.resolve("row1.html");

        CommandLineRun run = heatmap("--input", input.toString(), "--row", "1", "--output", png.toString(),
            "--html", html.toString());

        assertEquals(0, run.exitCode, run.err);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "not a PNG");
        assertTrue(run.out.contains("2 heads + average, L=5, S=5"), run.out);
        String page = Files.readString(html);
        assertTrue(page.contains("<svg "));
        assertTrue(page.contains("passage 1: w0 w1 w2 w3 w4"), "the text column is the passage");
        assertTrue(page.contains(">w4</text>"), "token labels");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("row1.html", "row1.png", "rows.jsonl"),
                files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()), "no temporary files left");
        }
    }

    /** Rows are numbered in file-name order, then storage order, whatever the files' sizes. */
    @Test
    void rowsOfADirectoryAreNumberedInFileOrder(@TempDir Path dir) throws Exception {
        Path input = Files.createDirectory(dir.resolve("weights"));
        Files.write(input.resolve("part-00000.json"), List.of(line(0, 1, 2), line(1, 1, 3)));
        Files.write(input.resolve("part-00001.json"), List.of(line(2, 1, 9)));   // the biggest file
        Files.write(input.resolve("part-00002.json"), List.of(line(3, 1, 4), line(4, 1, 6)));
        Files.writeString(input.resolve("_SUCCESS"), "");
        Files.writeString(input.resolve(".notes"), "hidden files are not data");
        int[] lengths = {2, 3, 9, 4, 6};
        for (int row = 0; row < lengths.length; row++) {
            Path png = dir.resolve("r" + row + ".png");
            CommandLineRun run = heatmap("--input", input.toString(), "--row", Integer.toString(row),
                "--output", png.toString());
            assertEquals(0, run.exitCode, run.err);
            assertTrue(run.out.contains("one panel, L=" + lengths[row] + ", S=" + lengths[row]),
                "row " + row + ": " + run.out);
        }
        CommandLineRun past = heatmap("--input", input.toString(), "--row", "5",
            "--output", dir.resolve("r5.png").toString());
        assertEquals(2, past.exitCode);
        assertEquals(List.of("spark-attention heatmap: --row 5 is out of range: " + input
            + " has 5 rows (numbered from 0 in file order)"), past.errorLines());
    }

    @Test
    void readsParquetWrittenBySpark(@TempDir Path dir) throws Exception {
        SparkSession spark = SparkSessions.start("HeatmapCommandTest", "local[2]");
        Path json = dir.resolve("rows.jsonl");
        Files.write(json, List.of(line(0, 3, 4), line(1, 3, 7)));
        Path parquet = dir.resolve("weights.parquet");
        spark.read().json(json.toString()).coalesce(1).write().parquet(parquet.toString());
        Path png = dir.resolve("p.png");
        CommandLineRun run = heatmap("--input", parquet.toString(), "--row", "1", "--output", png.toString(),
            "--scale", "per-panel");
        assertEquals(0, run.exitCode, run.err);
        assertTrue(run.out.contains("3 heads + average, L=7, S=7"), run.out);
        assertNotNull(ImageIO.read(png.toFile()));
    }

    @Test
    @DisplayName("column options are spelled --*-col; the earlier --*-column names still work, out of the help")
    void columnOptionNames() {
        CommandLineRun help = CommandLineRun.of("heatmap", "--help");
        assertEquals(0, help.exitCode);
        for (String option : List.of("--weights-col", "--tokens-col", "--query-tokens-col", "--text-col")) {
            assertTrue(help.out.contains(option), option + " in " + help.out);
        }
        assertFalse(help.out.contains("-column"), help.out);
    }

    @Test
    void badInputEndsWithExitCode2AndOneLine(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("rows.json");
        Files.write(input, List.of(line(0, 2, 3)));
        Path png = dir.resolve("out.png");
        String in = input.toString(), out = png.toString();

        assertBadInput("--row 1 is out of range: " + in + " has 1 row", "--input", in, "--row", "1", "--output", out);
        assertBadInput(in + " row 0: no column 'scores' (columns: attn_weights, id, text, tokens)",
            "--input", in, "--row", "0", "--output", out, "--weights-col", "scores");
        assertBadInput(in + " row 0: column 'text' has type string, expected array<array<float>>",
            "--input", in, "--row", "0", "--output", out, "--weights-column", "text");
        assertBadInput(in + " row 0: column 'id' has type bigint, expected array<string> (tokens)",
            "--input", in, "--row", "0", "--output", out, "--tokens-col", "id");
        assertBadInput("--input " + dir.resolve("missing.jsonl") + ": no such file or directory",
            "--input", dir.resolve("missing.jsonl").toString(), "--row", "0", "--output", out);
        assertBadInput("--output " + dir.resolve("no/out.png") + ": directory " + dir.resolve("no") + " does not exist",
            "--input", in, "--row", "0", "--output", dir.resolve("no/out.png").toString());
        assertBadInput(in + " row 0: column 'tokens' has type array<string>, expected string (the passage)",
            "--input", in, "--row", "0", "--output", out, "--html", dir.resolve("p.html").toString(),
            "--text-column", "tokens");
        assertBadInput("--row must be >= 0, got -1", "--input", in, "--row", "-1", "--output", out);
        assertBadInput("--scale: expected one of shared, per-panel, got 'log'",
            "--input", in, "--row", "0", "--output", out, "--scale", "log");
        Path text = Files.writeString(dir.resolve("rows.txt"), "a,b\n");
        assertBadInput("--input " + text + " is neither JSON lines nor CSV nor Parquet", "--input", text.toString(),
            "--row", "0", "--output", out);
        Path broken = Files.writeString(dir.resolve("broken.jsonl"), "{\"attn_weights\": [[1.0]]}\n{not json\n");
        assertBadInput("--input " + broken + ": malformed JSON record on line 2", "--input", broken.toString(), "--row",
            "0", "--output", out);
        assertFalse(Files.exists(png), "no picture for bad input");
        assertFalse(Files.exists(dir.resolve("p.html")), "no page for bad input");
    }

    @Test
    @DisplayName("JSON lines compressed with bzip2 or deflate are read like plain ones")
    void readsCompressedJsonLines(@TempDir Path dir) throws Exception {
        for (Class<? extends CompressionCodec> codecClass : List.of(BZip2Codec.class, DefaultCodec.class)) {
            CompressionCodec codec = ReflectionUtils.newInstance(codecClass, new Configuration());
            Path input = dir.resolve("rows.jsonl" + codec.getDefaultExtension());
            try (OutputStream out = codec.createOutputStream(Files.newOutputStream(input))) {
                out.write((line(0, 2, 3) + "\n" + line(1, 2, 4) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            Path png = dir.resolve("p" + codec.getDefaultExtension() + ".png");
            CommandLineRun run = heatmap("--input", input.toString(), "--row", "1", "--output", png.toString());
            assertEquals(0, run.exitCode, run.err);
            assertTrue(run.out.contains("2 heads + average, L=4, S=4"), run.out);
        }
    }

    @Test
    @DisplayName("pictures and pages are replaced only with --overwrite and only when spark-attention wrote them; "
        + "the input and the PNG are never overwritten by the page")
    void overwritesOnlyItsOwnFiles(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("rows.jsonl");
        Files.write(input, List.of(line(0, 1, 3)));
        Path png = dir.resolve("p.png"), html = dir.resolve("p.html");
        String in = input.toString();
        assertEquals(0, heatmap("--input", in, "--row", "0", "--output", png.toString(), "--html", html.toString())
            .exitCode);
        assertTrue(PngMark.isMarked(Files.readAllBytes(png)), "the picture is marked");
        assertTrue(Files.readString(html).contains("<meta name=\"generator\" content=\"spark-attention\">"));
        assertBadInput("--output " + png + " already exists (--overwrite replaces an earlier output of spark-attention)",
            "--input", in, "--row", "0", "--output", png.toString());
        CommandLineRun again = heatmap("--input", in, "--row", "0", "--output", png.toString(), "--html",
            html.toString(), "--overwrite");
        assertEquals(0, again.exitCode, again.err);

        Path photo = Files.write(dir.resolve("photo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3});
        assertBadInput("--output " + photo + " exists and is not replaced: it is not a PNG written by spark-attention",
            "--input", in, "--row", "0", "--output", photo.toString(), "--overwrite");
        Path page = Files.writeString(dir.resolve("page.html"), "<!DOCTYPE html><p>mine</p>");
        assertBadInput("--html " + page + " exists and is not replaced: it is not an HTML page written by "
            + "spark-attention", "--input", in, "--row", "0", "--output", png.toString(), "--html", page.toString(),
            "--overwrite");
        assertBadInput("--output " + input + " is the input (--input " + input + ")",
            "--input", in, "--row", "0", "--output", in, "--overwrite");
        assertBadInput("--html " + dir.resolve("q.png") + " is the same path as --output " + dir.resolve("q.png"),
            "--input", in, "--row", "0", "--output", dir.resolve("q.png").toString(), "--html",
            dir.resolve("q.png").toString());
        assertEquals(List.of("p.html", "p.png", "page.html", "photo.png", "rows.jsonl"), Cli.listNames(dir),
            "no temporary file left, nothing else written");
        assertEquals("<!DOCTYPE html><p>mine</p>", Files.readString(page));
    }

    private static void assertBadInput(String expected, String... args) {
        CommandLineRun run = heatmap(args);
        assertEquals(2, run.exitCode, run.err);
        List<String> lines = run.errorLines();
        assertEquals(1, lines.size(), run.err);
        assertTrue(lines.get(0).startsWith("spark-attention heatmap: " + expected), lines.get(0));
    }

    private static CommandLineRun heatmap(String... args) {
        List<String> all = new ArrayList<>(List.of("heatmap", "--master", "local[2]"));
        all.addAll(List.of(args));
        return CommandLineRun.of(all.toArray(new String[0]));
    }

    /** One JSON line: H heads of n×n softmax-like weights, tokens w0..w(n-1), a text column. */
    private static String line(int id, int heads, int n) throws Exception {
        Map<String, Object> row = new LinkedHashMap<>();
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tokens.add("w" + i);
        }
        List<Object> weights = new ArrayList<>();
        for (int h = 0; h < heads; h++) {
            List<List<Double>> matrix = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                List<Double> r = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    r.add(j == (i + h) % n ? 0.5 + 0.5 / n : 0.5 / n);
                }
                matrix.add(r);
            }
            weights.add(matrix);
        }
        row.put("id", id);
        row.put("tokens", tokens);
        row.put("text", "passage " + id + ": " + String.join(" ", tokens));
        row.put("attn_weights", heads == 1 ? weights.get(0) : weights);
        return JSON.writeValueAsString(row);
    }
}
