package io.sparkattention.examples.cli;
import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.BertModelFiles;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.feature.MiniLmReference;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention embed} end to end: the bundled model's numbers, the output forms, bad input. */
class EmbedCommandTest {

    /** all-MiniLM-L6-v2's vocabulary size: the random models take its tokenizer's ids. */
    private static final int MINILM_VOCAB = 30522;

    @TempDir
    Path dir;

    /** Runs the command with stdout captured: exit code, stderr, stdout. */
    private static Cli.Result[] runCapturingStdout(StringBuilder stdout, String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            Cli.Result result = Cli.run(args);
            stdout.append(captured.toString(StandardCharsets.UTF_8));
            return new Cli.Result[] {result};
        } finally {
            System.setOut(original);
        }
    }

    private Path texts(String... texts) {
        List<Object> rows = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", i);
            row.put("text", texts[i]);
            rows.add(row);
        }
        Path in = dir.resolve("texts.jsonl");
        Cli.writeJsonLines(in, rows);
        return in;
    }

    private static String[] referenceTexts() {
        return MiniLmReference.cases().stream().map(MiniLmReference.Case::text).toArray(String[]::new);
    }

    @Test
    @DisplayName("the bundled all-MiniLM-L6-v2: Hugging Face's ids and the reference embeddings within 1e-5, input columns kept")
    void embedsWithTheBundledModel() {
        Path in = texts(referenceTexts());
        Path out = dir.resolve("out.jsonl");
        StringBuilder stdout = new StringBuilder();
        Cli.Result r = runCapturingStdout(stdout, "embed", "--input", in.toString(), "--output", out.toString(),
            "--master", Cli.MASTER)[0];
        assertEquals(0, r.exitCode, r.toString());
        List<MiniLmReference.Case> cases = MiniLmReference.cases();
        List<JsonNode> rows = Cli.readJsonLines(out);
        assertEquals(cases.size(), rows.size());
        for (JsonNode row : rows) {
            int id = row.get("id").asInt();
            MiniLmReference.Case expected = MiniLmReference.huggingFace(cases.get(id));
            assertEquals(expected.text(), row.get("text").asText());
            int[] ids = new int[row.get("input_ids").size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = row.get("input_ids").get(i).asInt();
            }
            assertArrayEquals(expected.inputIds(), ids);
            assertEquals(384, row.get("embedding").size());
            if (java.util.Arrays.equals(ids, cases.get(id).inputIds())) {
                for (int i = 0; i < 384; i++) {
                    assertEquals(expected.embedding()[i], row.get("embedding").get(i).asDouble(), 1e-5,
                        expected.text() + " component " + i);
                }
            }
        }
        assertTrue(stdout.toString().strip().endsWith("embed: 6 texts embedded into " + out + "; 0 truncated at 256 "
            + "tokens"), stdout.toString());
    }

    @Test
    @DisplayName("Parquet output: the embedding is an MLlib vector, --states adds L×E, --max-length truncates and says so")
    void parquetWithStatesAndTruncation() {
        Path in = texts(referenceTexts());
        Path out = dir.resolve("out.parquet");
        StringBuilder stdout = new StringBuilder();
        Cli.Result r = runCapturingStdout(stdout, "embed", "--input", in.toString(), "--output", out.toString(),
            "--states", "--max-length", "10", "--pooling", "cls", "--no-normalize", "--master", Cli.MASTER)[0];
        assertEquals(0, r.exitCode, r.toString());
        List<Row> rows = SparkTestSession.get().read().parquet(out.toString()).orderBy("id").collectAsList();
        Row first = rows.get(0);
        Vector embedding = first.getAs("embedding");
        assertEquals(384, embedding.size());
        assertEquals(10, first.getList(first.fieldIndex("input_ids")).size());
        assertEquals(10, first.getList(first.fieldIndex("last_hidden_state")).size());
        assertTrue(stdout.toString().contains("; 5 truncated at 10 tokens"), stdout.toString());
    }

    /** A random BERT over all-MiniLM-L6-v2's vocabulary (hidden 8, 2 heads) as a BertModel safetensors file. */
    private Path randomSafeTensors() throws IOException {
        BertConfig config = new BertConfig(1, 8, 2, 16, 512, MINILM_VOCAB, 2, 1e-12f);
        Random rnd = new Random(3);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        BertWeights.shapes(config).forEach((name, shape) -> {
            long size = 1;
            for (long d : shape) {
                size *= d;
            }
            float[] t = new float[(int) size];
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) rnd.nextGaussian() * 0.2f + (name.endsWith("LayerNorm.weight") ? 1 : 0);
            }
            tensors.put(name, t);
        });
        Path file = dir.resolve("model.safetensors");
        BertModelFiles.writeSafeTensors(new BertEncoder(new BertWeights(config, tensors)), file);
        return file;
    }

    /** The file's tensors without its metadata (the heads): as a bare PyTorch save_file writes them. */
    private Path withoutMetadata(Path file) throws IOException {
        SafeTensors st = SafeTensors.read(file);
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (String name : st.names()) {
            tensors.put(name, Tensor.f32(st.floats(name), st.shape(name)));
        }
        Path bare = dir.resolve("bare.safetensors");
        SafeTensorsWriter.write(bare, tensors, Map.of());
        return bare;
    }

    private Path tokenizerFile() throws IOException {
        Path file = dir.resolve("tokenizer.json");
        Files.write(file, MiniLmReference.tokenizerJson());
        return file;
    }

    @Test
    @DisplayName("--safetensors with --tokenizer embeds with the user's model, its heads from the file's metadata")
    void embedsWithSafeTensors() throws IOException {
        Path in = texts("Emma walked to Highbury.", "");
        Path out = dir.resolve("out.jsonl");
        Cli.Result r = Cli.run("embed", "--input", in.toString(), "--output", out.toString(), "--safetensors",
            randomSafeTensors().toString(), "--tokenizer", tokenizerFile().toString(), "--master", Cli.MASTER);
        assertEquals(0, r.exitCode, r.toString());
        List<JsonNode> rows = Cli.readJsonLines(out);
        assertEquals(8, rows.get(0).get("embedding").size());
        assertEquals(2, rows.get(1).get("input_ids").size());
    }

    /** Runs embed expecting bad input: exit 2, one stderr line containing {@code expected}, no output left. */
    private void assertBadInput(String expected, String... args) {
        Path out = dir.resolve("bad-out.jsonl");
        List<String> all = new ArrayList<>(List.of("embed", "--output", out.toString(), "--master", Cli.MASTER));
        all.addAll(List.of(args));
        List<String> before = Cli.listNames(dir);
        Cli.Result r = Cli.run(all.toArray(new String[0]));
        assertEquals(2, r.exitCode, r.toString());
        assertEquals(1, r.errorLines().size(), r.toString());
        assertTrue(r.errorLines().get(0).contains(expected), r.errorLines().get(0));
        assertFalse(Files.exists(out));
        assertEquals(before, Cli.listNames(dir), "nothing left behind");
    }

    @Test
    @DisplayName("bad input: exit 2, one line naming the problem, nothing left behind")
    void badInput() throws IOException {
        Path good = texts("a text", "another");
        Path tokenizer = tokenizerFile();
        Path model = randomSafeTensors();

        Path noText = dir.resolve("notext.jsonl");
        Cli.writeJsonLines(noText, List.of("{\"body\": \"x\"}"));
        assertBadInput("has no column text (--text-col); its columns: body", "--input", noText.toString());

        Path numbers = dir.resolve("numbers.jsonl");
        Cli.writeJsonLines(numbers, List.of("{\"text\": 3}"));
        assertBadInput("column text (--text-col) holds bigint, not strings", "--input", numbers.toString());

        Path nullText = dir.resolve("null.jsonl");
        Cli.writeJsonLines(nullText, List.of("{\"text\": \"a\"}", "{\"text\": null}", "{\"text\": \"b\"}"));
        assertBadInput(nullText + ": line 2: column text is null", "--input", nullText.toString());

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"model\": {");
        assertBadInput("--tokenizer: " + broken + " is not a Hugging Face tokenizer.json", "--input", good.toString(),
            "--safetensors", model.toString(), "--tokenizer", broken.toString(), "--num-heads", "2");

        Path truncated = dir.resolve("truncated.onnx");
        try (InputStream onnx = EmbedCommandTest.class.getResourceAsStream("/all-minilm-l6-v2.onnx")) {
            Files.write(truncated, onnx.readNBytes(4096));
        }
        assertBadInput("--onnx: " + truncated, "--input", good.toString(), "--onnx", truncated.toString(),
            "--tokenizer", tokenizer.toString());
        assertBadInput("--onnx: " + tokenizer, "--input", good.toString(), "--onnx", tokenizer.toString(),
            "--tokenizer", tokenizer.toString());

        assertBadInput("--num-heads (3) must divide the hidden width (8) of ", "--input", good.toString(),
            "--safetensors", model.toString(), "--tokenizer", tokenizer.toString(), "--num-heads", "3");

        assertBadInput("--model and --onnx both given", "--input", good.toString(), "--model", "all-minilm-l6-v2",
            "--onnx", model.toString(), "--tokenizer", tokenizer.toString());
        Path bare = withoutMetadata(model);
        assertBadInput("--safetensors " + bare + ": its metadata records no num_attention_heads; give the encoder's "
            + "heads with --num-heads", "--input", good.toString(), "--safetensors", bare.toString(), "--tokenizer",
            tokenizer.toString());
        assertBadInput("--onnx needs --tokenizer", "--input", good.toString(), "--onnx", model.toString());
        assertBadInput("--model: unknown bundled model", "--input", good.toString(), "--model", "bert-base");
        assertBadInput("--model /no/such/dir: no such directory", "--input", good.toString(), "--model",
            "/no/such/dir");
        assertBadInput("--model " + tokenizer + ": not a directory", "--input", good.toString(), "--model",
            tokenizer.toString());
        assertBadInput("--pooling must be mean, cls or max", "--input", good.toString(), "--pooling", "sum");
        assertBadInput("--max-length 600 is longer than the model's 512 positions", "--input", good.toString(),
            "--max-length", "600");
    }
}
