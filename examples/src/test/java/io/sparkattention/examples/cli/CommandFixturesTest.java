package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.Fixtures;
import io.sparkattention.testing.MhaFixture;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every PyTorch fixture through {@code apply} and {@code sdpa}: JSON lines in, JSON lines (or Parquet) out. */
class CommandFixturesTest {

    @TempDir
    Path dir;

    static String[] mhaFixtures() {
        return Fixtures.MHA;
    }

    static String[] sdpaFixtures() {
        return Fixtures.SDPA;
    }

    /** The fixture's rows as JSON objects, with an {@code id} the command must carry through. */
    static List<Map<String, Object>> mhaRows(MhaFixture f, boolean paddingAsMask) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int b = 0; b < f.batch; b++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", "item-" + b);
            row.put("query", f.query(b));
            if (!f.selfAttention) {
                row.put("key", f.key(b));
                row.put("value", f.value(b));
            }
            if (f.lengths != null) {
                if (paddingAsMask) {
                    row.put("attn_mask", f.allowed(b));
                } else {
                    row.put("key_length", f.lengths[b]);
                }
            }
            if (f.bias(b) != null) {
                row.put("attn_bias", f.bias(b));
            }
            rows.add(row);
        }
        return rows;
    }

    static List<String> applyArgs(MhaFixture f, Path input, Path output) {
        List<String> args = new ArrayList<>(List.of("apply", "--weights", f.path.toString(), "--prefix", "state_dict.",
            "--num-heads", Integer.toString(f.numHeads), "--input", input.toString(), "--output", output.toString(),
            "--need-weights", "--master", Cli.MASTER));
        if (f.causal) {
            args.add("--causal");
        }
        if (!f.averageWeights) {
            args.add("--per-head-weights");
        }
        return args;
    }

    static void assertMhaOutput(MhaFixture f, List<JsonNode> out, String variant) {
        assertEquals(f.batch, out.size(), f.name + ": rows");
        for (int b = 0; b < f.batch; b++) {
            JsonNode row = out.get(b);
            String what = f.name + " " + variant + " row " + b;
            assertEquals("item-" + b, row.get("id").asText(), what + ": the input's order and columns are kept");
            assertTrue(row.has("query"), what + ": query kept");
            assertClose(what + " attn_output", f.expectedOutput(b), Cli.flatten(row.get("attn_output")));
            if (f.expectedWeights(b) != null) {
                assertClose(what + " attn_weights", f.expectedWeights(b), Cli.flatten(row.get("attn_weights")));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("mhaFixtures")
    @DisplayName("apply: every nn.MultiheadAttention fixture, JSON lines in and out, matches PyTorch")
    void applyMatchesPyTorch(String name) {
        MhaFixture f = MhaFixture.load(name);
        Path input = dir.resolve(name + ".jsonl"), output = dir.resolve(name + "-out.jsonl");
        Cli.writeJsonLines(input, mhaRows(f, false));
        Cli.Result result = Cli.run(applyArgs(f, input, output).toArray(new String[0]));
        assertEquals(0, result.exitCode, result.toString());
        assertMhaOutput(f, Cli.readJsonLines(output), "apply");
    }

    @Test
    @DisplayName("apply: PyTorch's key_padding_mask given as attn_mask (true = may attend) gives the same numbers")
    void applyWithBooleanMask() {
        MhaFixture f = MhaFixture.load("mha_key_padding");
        Path input = dir.resolve("mask.json"), output = dir.resolve("mask-out");
        Cli.writeJsonLines(input, mhaRows(f, true));
        Cli.Result result = Cli.run(applyArgs(f, input, output).toArray(new String[0]));
        assertEquals(0, result.exitCode, result.toString());
        assertTrue(Files.isDirectory(output), "an output without a .json suffix is a directory of part files");
        assertMhaOutput(f, Cli.readJsonLines(output), "boolean mask");
    }

    @Test
    @DisplayName("apply: Parquet in, Parquet out")
    void applyParquet() {
        MhaFixture f = MhaFixture.load("mha_cross_kdim_vdim");
        Path json = dir.resolve("cross.jsonl"), input = dir.resolve("cross.parquet"), output = dir.resolve("out.parquet");
        Cli.writeJsonLines(json, mhaRows(f, false));
        SparkSession spark = SparkSession.active();
        spark.read().json(json.toString()).coalesce(1).write().parquet(input.toString());
        Cli.Result result = Cli.run(applyArgs(f, input, output).toArray(new String[0]));
        assertEquals(0, result.exitCode, result.toString());
        List<Row> rows = spark.read().parquet(output.toString()).orderBy("id").collectAsList();
        List<JsonNode> asJson = new ArrayList<>();
        for (Row row : rows) {
            try {
                asJson.add(Cli.JSON.readTree(row.json()));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        assertMhaOutput(f, asJson, "parquet");
    }

    @Test
    @DisplayName("apply: a directory of JSON lines files, rows in file order")
    void applyDirectoryInput() {
        MhaFixture f = MhaFixture.load("mha_key_padding");
        Path input = dir.resolve("in-dir"), output = dir.resolve("dir-out.jsonl");
        List<Map<String, Object>> rows = mhaRows(f, false);
        try {
            Files.createDirectories(input);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Cli.writeJsonLines(input.resolve("a.jsonl"), rows.subList(0, 2));
        Cli.writeJsonLines(input.resolve("b.jsonl"), rows.subList(2, rows.size()));
        Cli.Result result = Cli.run(applyArgs(f, input, output).toArray(new String[0]));
        assertEquals(0, result.exitCode, result.toString());
        List<JsonNode> out = new ArrayList<>(Cli.readJsonLines(output));
        out.sort((a, b) -> a.get("id").asText().compareTo(b.get("id").asText()));
        assertMhaOutput(f, out, "directory");
    }

    @ParameterizedTest
    @MethodSource("sdpaFixtures")
    @DisplayName("sdpa: every seed-notebook fixture, one row per (batch, head), matches the float64 reference")
    void sdpaMatchesReference(String name) throws IOException {
        SafeTensors st = Fixtures.open(name);
        long[] qs = st.shape("input.query"), ks = st.shape("input.key"), vs = st.shape("input.value");
        int bh = (int) qs[0], L = (int) qs[1], d = (int) qs[2], S = (int) ks[1], dv = (int) vs[2];
        float[] q = st.floats("input.query"), k = st.floats("input.key"), v = st.floats("input.value");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int r = 0; r < bh; r++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", r);
            row.put("query", matrix(q, r, L, d));
            row.put("key", matrix(k, r, S, d));
            row.put("value", matrix(v, r, S, dv));
            rows.add(row);
        }
        Path input = dir.resolve(name + ".jsonl"), output = dir.resolve(name + "-out.jsonl");
        Cli.writeJsonLines(input, rows);
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", input.toString(), "--output", output.toString(),
            "--need-weights", "--master", Cli.MASTER));
        if (Fixtures.config(st).get("causal").asBoolean()) {
            args.add("--causal");
        }
        Cli.Result result = Cli.run(args.toArray(new String[0]));
        assertEquals(0, result.exitCode, result.toString());
        List<JsonNode> out = Cli.readJsonLines(output);
        double[] expected = st.doubles("expected.output"), weights = st.doubles("expected.attention_weights");
        for (int r = 0; r < bh; r++) {
            assertEquals(r, out.get(r).get("id").asInt());
            assertClose(name + " row " + r, Arrays.copyOfRange(expected, r * L * dv, (r + 1) * L * dv),
                Cli.flatten(out.get(r).get("attn_output")));
            assertClose(name + " row " + r + " weights", Arrays.copyOfRange(weights, r * L * S, (r + 1) * L * S),
                Cli.flatten(out.get(r).get("attn_weights")));
        }
    }

    private static float[][] matrix(float[] all, int index, int rows, int cols) {
        float[][] m = new float[rows][cols];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(all, (index * rows + i) * cols, m[i], 0, cols);
        }
        return m;
    }
}
