package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.rows.SequenceLayout;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code train} reads its input as {@code apply} does: JSON lines plain or compressed, or
 * Parquet, nested or flat features, give the same losses; padded rows with a {@code key_length} column named by
 * {@code --key-length-col} train like the rows cut to their length, and such a column is never
 * used, or ignored, without being named.
 */
class TrainCommandInputTest {

    @TempDir
    Path dir;

    private final TrainFixture fixture = TrainFixture.open("cls_basic");

    /** The losses {@code train} prints for {@code input}, checked against PyTorch's within 1e-4. */
    private double[] losses(Path input, String model, String... extra) throws IOException {
        Path initial = dir.resolve("initial.safetensors");
        if (!Files.exists(initial)) {
            fixture.writeInitial(initial);
        }
        List<String> args = new ArrayList<>(fixture.args(input, initial, dir.resolve(model), null));
        args.addAll(List.of(extra));
        CommandLineRun run = CommandLineRun.of(args.toArray(new String[0]));
        assertEquals(0, run.exitCode, run.err);
        double[] got = new double[run.outLines().size()];
        for (int i = 0; i < got.length; i++) {
            JsonNode line = Cli.JSON.readTree(run.outLines().get(i));
            got[i] = line.get("loss").asDouble();
        }
        TrainCommandFixturesTest.assertRelative(input.getFileName() + " losses", fixture.expectedLosses(), got);
        return got;
    }

    @Test
    @DisplayName("gzip-compressed JSON lines and Parquet train exactly like plain JSON lines")
    void formats() throws IOException {
        Path plain = fixture.writeInput(dir.resolve("in.jsonl"));
        double[] expected = losses(plain, "model-plain");

        Path gz = dir.resolve("in.jsonl.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(Files.readAllBytes(plain));
        }
        assertEquals(Arrays.toString(expected), Arrays.toString(losses(gz, "model-gz")));

        Path parquet = dir.resolve("in.parquet");
        SparkSession.active().read().json(plain.toString()).coalesce(1).write().parquet(parquet.toString());
        assertEquals(Arrays.toString(expected), Arrays.toString(losses(parquet, "model-parquet")));
    }

    @Test
    @DisplayName("Parquet with the features flat (array<double> of L·E values, E in the column's metadata) trains "
        + "exactly like the nested features")
    void flatFeatures() throws IOException {
        Path plain = fixture.writeInput(dir.resolve("in.jsonl"));
        double[] expected = losses(plain, "model-nested");
        Path parquet = dir.resolve("flat.parquet");
        SparkSession.active().read().json(plain.toString())
            .withColumn("query", SequenceLayout.flatten(col("query"), "query", fixture.embedDim))
            .coalesce(1).write().parquet(parquet.toString());
        assertEquals(Arrays.toString(expected), Arrays.toString(losses(parquet, "model-flat")));
    }

    @Test
    @DisplayName("zero-padded rows with --key-length-col key_length train like the rows cut to their length; "
        + "an unnamed key_length column is refused")
    void keyLengthColumn() throws IOException {
        double[] expected = losses(fixture.writeInput(dir.resolve("in.jsonl")), "model-cut");
        int width = 0;
        List<Map<String, Object>> rows = fixture.jsonRows();
        for (Map<String, Object> row : rows) {
            width = Math.max(width, ((double[][]) row.get("query")).length);
        }
        List<Object> padded = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            double[][] x = (double[][]) row.get("query");
            row.put("query", Arrays.copyOf(x, width, double[][].class));
            for (int t = x.length; t < width; t++) {
                ((double[][]) row.get("query"))[t] = new double[fixture.embedDim];
            }
            row.put(TrainCommand.KEY_LENGTH, x.length);
            padded.add(row);
        }
        Path in = dir.resolve("in-padded.jsonl");
        Cli.writeJsonLines(in, padded);
        assertEquals(Arrays.toString(expected), Arrays.toString(losses(in, "model-padded", "--key-length-col",
            TrainCommand.KEY_LENGTH)));

        Path initial = dir.resolve("initial.safetensors");
        List<String> unnamed = fixture.args(in, initial, dir.resolve("model-unnamed"), null);
        CommandLineRun refused = CommandLineRun.of(unnamed.toArray(new String[0]));
        assertEquals(2, refused.exitCode, refused.err);
        assertEquals(List.of("spark-attention train: --input " + in + " has a column key_length, and no "
            + "--key-length-col is given: --key-length-col key_length ignores each row's tokens past its length, "
            + "--key-length-col none treats every token as valid"), refused.errorLines());
        List<String> ignored = new ArrayList<>(fixture.args(in, initial, dir.resolve("model-all-tokens"), null));
        ignored.addAll(List.of("--key-length-col", "none"));
        assertEquals(0, CommandLineRun.of(ignored.toArray(new String[0])).exitCode);
    }
}
