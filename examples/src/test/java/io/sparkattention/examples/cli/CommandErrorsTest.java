package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.testing.Fixtures;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input of every kind: exit code 2, one line on stderr that names the problem, and nothing
 * left at the output path (nor a temporary sibling of it). Edge inputs that are not errors: empty
 * input, empty query, no valid key.
 */
class CommandErrorsTest {

    private static final String WEIGHTS = Fixtures.path("mha_self_basic").toString();  // E = 16, 4 heads

    @TempDir
    Path dir;

    private Path input(String... lines) {
        Path in = dir.resolve("in.jsonl");
        Cli.writeJsonLines(in, List.of((Object[]) lines));
        return in;
    }

    private String row16(int rows) {
        List<String> r = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            float[] x = new float[16];
            Arrays.fill(x, 0.1f * (i + 1));
            r.add(Arrays.toString(x));
        }
        return "[" + String.join(",", r) + "]";
    }

    /** Runs {@code apply} with the basic fixture's weights on {@code in}, plus extra args. */
    private Cli.Result apply(Path in, String... extra) {
        List<String> args = new ArrayList<>(List.of("apply", "--weights", WEIGHTS, "--prefix", "state_dict.",
            "--num-heads", "4", "--input", in.toString(), "--output", dir.resolve("out.jsonl").toString(),
            "--master", Cli.MASTER));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    /** Exit 2, exactly one stderr line containing every fragment, and no output nor temporary left. */
    private void assertBadInput(Cli.Result result, String... fragments) {
        assertEquals(2, result.exitCode, result.toString());
        List<String> lines = result.errorLines();
        assertEquals(1, lines.size(), "one line on stderr: " + result.stderr);
        for (String f : fragments) {
            assertTrue(lines.get(0).contains(f), "'" + f + "' missing from: " + lines.get(0));
        }
        List<String> left = new ArrayList<>(Cli.listNames(dir));
        left.removeIf(n -> n.equals("in.jsonl") || n.endsWith(".safetensors") || n.equals("in-dir"));
        assertEquals(List.of(), left, "nothing left behind");
    }

    @Test
    @DisplayName("a ragged row names its record (file and 1-based line) and matrix row")
    void raggedRow() {
        Path in = input("{\"query\":" + row16(2) + "}", "{\"query\":[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],[1,2]]}");
        assertBadInput(apply(in), "spark-attention apply: --input " + in + ": line 2: column query row 1 has 2 values, "
            + "expected 16 (as row 0)");
    }

    @Test
    @DisplayName("a bad row of a Parquet input is named by its row in the input, from 0")
    void parquetRow() {
        Path json = input("{\"query\":" + row16(1) + "}", "{\"query\":" + row16(1) + "}",
            "{\"query\":[[1,2]]}");
        Path parquet = dir.resolve("in-dir");
        SparkSessions.start("CommandErrorsTest", Cli.MASTER).read().json(json.toString()).coalesce(1).write()
            .parquet(parquet.toString());
        assertBadInput(apply(parquet), "spark-attention apply: --input " + parquet + ": row 2: column query row 0 has "
            + "2 values, expected embed_dim 16");
    }

    @Test
    @DisplayName("NaN in the query names the record, the matrix row and position")
    void nan() {
        String bad = row16(1).replaceFirst("0\\.1", "NaN");
        assertBadInput(apply(input("{\"query\":" + row16(1) + "}", "{\"query\":" + row16(1) + "}",
            "{\"query\":" + bad + "}")), "in.jsonl: line 3: column query has NaN at row 0, position 0");
    }

    @Test
    @DisplayName("a key_length outside [0, S] names the record and the key count")
    void keyLengthOutOfRange() {
        assertBadInput(apply(input("{\"query\":" + row16(2) + ",\"key_length\":3}")),
            "in.jsonl: line 1: column key_length is 3, outside [0, 2] (the row has 2 keys)");
    }

    @Test
    @DisplayName("a query of the wrong type names the column, the expected and the found type")
    void wrongType() {
        assertBadInput(apply(input("{\"query\":\"hello\"}")),
            "column query (queryCol): expected array<array<float>>, array<array<double>> or array<vector>, "
                + "or a flat array<float|double> of L·W values, found string");
    }

    @Test
    @DisplayName("rows of the wrong width for the weights name the column and embed_dim")
    void wrongWidth() {
        assertBadInput(apply(input("{\"query\":[[1,2,3]]}")), "line 1: column query row 0 has 3 values, expected embed_dim 16");
    }

    @Test
    @DisplayName("a truncated weights file is named, with what is wrong with it")
    void truncatedWeights() throws IOException {
        Path truncated = dir.resolve("truncated.safetensors");
        byte[] bytes = Files.readAllBytes(Path.of(WEIGHTS));
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
        List<String> args = List.of("apply", "--weights", truncated.toString(), "--num-heads", "4", "--input",
            input("{\"query\":" + row16(1) + "}").toString(), "--output", dir.resolve("out.jsonl").toString(),
            "--master", Cli.MASTER);
        assertBadInput(Cli.run(args.toArray(new String[0])), "--weights: ", truncated.toString());
    }

    @Test
    @DisplayName("a weights file with a wrongly shaped tensor names the tensor and both shapes")
    void wrongTensorShape() throws IOException {
        SafeTensors st = SafeTensors.read(Path.of(WEIGHTS));
        Map<String, Tensor> tensors = new TreeMap<>();
        for (String name : st.names()) {
            if (name.startsWith("state_dict.")) {
                float[] values = st.floats(name);
                long[] shape = st.shape(name);
                tensors.put(name, name.endsWith("out_proj.weight") ? Tensor.f32(Arrays.copyOf(values, 16 * 8), 16, 8)
                    : Tensor.f32(values, shape));
            }
        }
        Path broken = dir.resolve("broken.safetensors");
        SafeTensorsWriter.write(broken, tensors, null);
        List<String> args = List.of("apply", "--weights", broken.toString(), "--prefix", "state_dict.", "--num-heads",
            "4", "--input", input("{\"query\":" + row16(1) + "}").toString(), "--output",
            dir.resolve("out.jsonl").toString(), "--master", Cli.MASTER);
        assertBadInput(Cli.run(args.toArray(new String[0])), "tensor 'state_dict.out_proj.weight'", "[16, 8]",
            "[16, 16]");
    }

    @Test
    @DisplayName("heads that do not divide E name both numbers")
    void headsDoNotDivide() {
        List<String> args = List.of("apply", "--weights", WEIGHTS, "--prefix", "state_dict.", "--num-heads", "5",
            "--input", input("{\"query\":" + row16(1) + "}").toString(), "--output", dir.resolve("out.jsonl").toString(),
            "--master", Cli.MASTER);
        assertBadInput(Cli.run(args.toArray(new String[0])), "numHeads (5) must divide embed_dim E (16)");
        Path in = dir.resolve("in.jsonl");
        assertBadInput(Cli.run("sdpa", "--num-heads", "3", "--input", in.toString(), "--output",
            dir.resolve("out.jsonl").toString(), "--master", Cli.MASTER), "--num-heads (3) must divide the query width (16)");
    }

    @Test
    @DisplayName("a missing input file, a missing weights file and an unknown flag are named")
    void missingFilesAndUnknownFlag() {
        Path missing = dir.resolve("nope.jsonl");
        assertBadInput(apply(missing), "--input " + missing + ": no such file or directory");
        List<String> args = List.of("apply", "--weights", dir.resolve("none.safetensors").toString(), "--num-heads",
            "4", "--input", input("{\"query\":" + row16(1) + "}").toString(), "--output",
            dir.resolve("out.jsonl").toString(), "--master", Cli.MASTER);
        assertBadInput(Cli.run(args.toArray(new String[0])), "--weights: ", "none.safetensors");
        assertBadInput(apply(dir.resolve("in.jsonl"), "--bogus"), "Unknown option: '--bogus'");
        assertBadInput(Cli.run("sdpa", "--input", "x.jsonl"), "Missing required option: '--output=OUT'");
    }

    @Test
    @DisplayName("a malformed JSON line is named as such")
    void malformedJson() {
        assertBadInput(apply(input("{\"query\":" + row16(1) + "}", "{\"query\": [[1, 2")),
            "--input " + dir.resolve("in.jsonl") + ": malformed JSON record");
    }

    @Test
    @DisplayName("an unknown strategy is refused by name")
    void unsupportedStrategy() {
        assertBadInput(apply(input("{\"query\":" + row16(1) + "}"), "--strategy", "fastest"), "strategy", "fastest");
    }

    @Test
    @DisplayName("an existing output is refused (and kept) unless --overwrite, which replaces only an earlier output")
    void existingOutput() throws IOException {
        Path in = input("{\"query\":" + row16(1) + "}");
        Path out = dir.resolve("out.jsonl");
        Files.writeString(out, "old\n");
        Cli.Result refused = apply(in);
        assertEquals(2, refused.exitCode, refused.toString());
        assertEquals(List.of("spark-attention apply: --output " + out + " already exists (--overwrite replaces an "
            + "earlier output of spark-attention)"), refused.errorLines());
        assertEquals("old\n", Files.readString(out));
        Cli.Result notOurs = apply(in, "--overwrite");
        assertEquals(2, notOurs.exitCode, notOurs.toString());
        assertEquals("old\n", Files.readString(out), "a file this tool did not write is kept");
        Files.delete(out);
        assertEquals(0, apply(in).exitCode);
        Cli.Result replaced = apply(input("{\"query\":" + row16(1) + "}", "{\"query\":" + row16(2) + "}"),
            "--overwrite");
        assertEquals(0, replaced.exitCode, replaced.toString());
        assertEquals(2, Cli.readJsonLines(out).size());
    }

    @Test
    @DisplayName("an empty input gives an empty output; an empty query an empty output row; no valid key the bias")
    void edgeInputsAreNotErrors() throws IOException {
        Path in = dir.resolve("in.jsonl");
        Files.writeString(in, "");
        Path out = dir.resolve("out.jsonl");
        Cli.Result empty = apply(in);
        assertEquals(0, empty.exitCode, empty.toString());
        assertTrue(Files.isRegularFile(out));
        assertEquals(0, Files.size(out));

        input("{\"id\":0,\"query\":[]}", "{\"id\":1,\"query\":" + row16(2) + ",\"key_length\":0}");
        Cli.Result edge = apply(in, "--overwrite", "--need-weights");
        assertEquals(0, edge.exitCode, edge.toString());
        List<JsonNode> rows = Cli.readJsonLines(out);
        assertEquals(0, rows.get(0).get("attn_output").size());
        float[] bias = io.sparkattention.ml.MultiHeadAttentionModel.fromSafeTensors(WEIGHTS, 4, "state_dict.")
            .weights().outBias();
        float[] got = Cli.flatten(rows.get(1).get("attn_output"));
        assertArrayEquals(bias, Arrays.copyOfRange(got, 0, 16), "attending to nothing leaves the output bias");
        assertArrayEquals(bias, Arrays.copyOfRange(got, 16, 32));
        assertArrayEquals(new float[4], Cli.flatten(rows.get(1).get("attn_weights")));
        assertFalse(rows.get(1).has("__spark_attention_row"), "the command's row index is not output");
    }
}
