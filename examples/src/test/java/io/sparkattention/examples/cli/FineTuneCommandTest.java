package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.classification.BertClassificationModel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code fine-tune} through its real entry point: the fine-tuning fixtures (their ids as an
 * {@code --ids-col} JSON lines input, their encoder as {@code --safetensors} with its prefix,
 * their head as {@code --initial-weights}) give PyTorch's losses on stdout and its final tensors in
 * {@code --export-pytorch} within 1e-4; bad ids, lengths and labels exit 2 naming the file and
 * line with nothing left behind; the saved model predicts new texts through {@code predict --model}.
 */
class FineTuneCommandTest {

    private static final double TOLERANCE = 1e-4;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ft_all_adamw_warmup_clip", "ft_top1_adam_weighted", "ft_head_only_cls"})
    @DisplayName("stdout has PyTorch's loss before each step and after the last; --export-pytorch its final tensors")
    void fixtures(String name) throws Exception {
        Path fixture = copy(name);
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = JSON.readTree(st.metadata().get("config"));
        Path input = writeIds(st, dir.resolve("in.jsonl"), -1, -1);
        Path head = writeHead(st, config, dir.resolve("head.safetensors"));
        Path export = dir.resolve("out.safetensors");
        List<String> args = new ArrayList<>(List.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("model").toString(), "--master", Cli.MASTER, "--ids-col", "input_ids",
            "--safetensors", fixture.toString(), "--prefix", "initial.", "--num-heads",
            config.get("num_heads").asText(), "--initial-weights", head.toString(), "--export-pytorch",
            export.toString(), "--trainable-layers", config.get("trainable_layers").asText(), "--pooling",
            config.get("pooling").asText(), "--solver", config.get("solver").asText(), "--step-size",
            config.get("step_size").asText(), "--warmup-steps", config.get("warmup_steps").asText(),
            "--max-grad-norm", config.get("max_grad_norm").asText(), "--dropout", "0", "--max-iter",
            config.get("steps").asText()));
        if (config.get("solver").asText().equals("adamw")) {
            args.addAll(List.of("--weight-decay", config.get("weight_decay").asText()));
        }
        if (config.get("weighted").asBoolean()) {
            args.addAll(List.of("--weight-col", "weight"));
        }
        CommandLineRun run = CommandLineRun.of(args.toArray(new String[0]));
        assertEquals(0, run.exitCode, run.err);
        double[] history = st.doubles("expected.loss_history");
        double[] expected = new double[history.length + 1];
        System.arraycopy(history, 0, expected, 0, history.length);
        expected[history.length] = st.doubles("expected.final_loss")[0];
        List<String> lines = run.stepLines();
        assertEquals(expected.length, lines.size(), "one line per step and one after the last: " + lines);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = JSON.readTree(lines.get(i));
            assertEquals(i, line.get("iteration").asInt());
            assertEquals(expected[i], line.get("loss").asDouble(), TOLERANCE * Math.abs(expected[i]), name + " " + i);
            assertEquals(i == lines.size() - 1, line.has("training_accuracy"), lines.get(i));
        }
        SafeTensors got = SafeTensors.read(export);
        int tensors = 0;
        for (String tensor : st.names()) {
            if (!tensor.startsWith("expected.final.")) {
                continue;
            }
            String n = tensor.substring("expected.final.".length());
            double[] ref = st.doubles(tensor);
            float[] out = got.floats(n);
            double maxDiff = 0, maxRef = 0;
            for (int i = 0; i < ref.length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(out[i] - ref[i]));
                maxRef = Math.max(maxRef, Math.abs(ref[i]));
            }
            double bound = n.endsWith("attention.self.key.bias")
                ? config.get("step_size").asDouble() * config.get("steps").asInt() : TOLERANCE * maxRef;
            assertTrue(maxDiff <= bound, name + ": " + n + " differs by " + maxDiff + " (bound " + bound + ")");
            tensors++;
        }
        assertEquals(got.names().size(), tensors, "every encoder tensor without prefix, and the head: " + got.names());
        assertEquals(BertClassificationModel.EXPORT_FORMAT, got.metadata().get("format"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"id", "length", "label"})
    @DisplayName("an id outside the vocabulary, a row longer than the positions or a bad label: exit 2 naming the file "
        + "and line, before any step, nothing left at --output or --export-pytorch")
    void badRows(String what) throws Exception {
        Path fixture = copy("ft_head_only_cls");
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = JSON.readTree(st.metadata().get("config"));
        int badLine = 4;
        Path input = dir.resolve("in.jsonl");
        switch (what) {
            case "id" -> writeIds(st, input, badLine, config.get("vocab").asInt());
            case "length" -> writeIds(st, input, badLine, -config.get("max_positions").asInt() - 2);
            default -> writeIds(st, input, badLine, Integer.MIN_VALUE);
        }
        Path model = dir.resolve("model");
        Path export = dir.resolve("out.safetensors");
        CommandLineRun run = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output", model.toString(),
            "--master", Cli.MASTER, "--ids-col", "input_ids", "--safetensors", fixture.toString(), "--prefix",
            "initial.", "--num-heads", config.get("num_heads").asText(), "--num-classes", "2", "--max-iter", "3",
            "--export-pytorch", export.toString());
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        String message = run.errorLines().get(0);
        assertTrue(message.contains(input.getFileName() + ":" + badLine) || message.contains("line " + badLine),
            "names the file and line: " + message);
        assertTrue(message.contains(what.equals("label") ? "label" : "input_ids"), message);
        assertTrue(run.stepLines().isEmpty(), "no step ran: " + run.stepLines());
        assertFalse(Files.exists(model), "nothing at --output");
        assertFalse(Files.exists(export), "nothing at --export-pytorch");
    }

    @Test
    @DisplayName("the estimator's param names in a message read as the options a command-line user typed")
    void messagesNameOptions() {
        assertEquals("column label is 7.0, outside [0, 3): without --num-classes or the label column's metadata, K is "
                + "the largest label + 1; set --num-classes to train more classes",
            FineTuneOptions.optionNames("column label is 7.0, outside [0, 3): without numClasses or the label column's "
                + "metadata, K is the largest label + 1; set numClasses to train more classes"));
        assertEquals("--num-classes is 3, but the label column's metadata declares 4 classes",
            FineTuneOptions.optionNames("numClasses is 3, but the label column's metadata declares 4 classes"));
        assertEquals("--trainable-layers is 7, the model has 6 layers",
            FineTuneOptions.optionNames("trainableLayers is 7, the model has 6 layers"));
    }

    @Test
    @DisplayName("--handle-invalid: skip leaves rows without ids out of the fit; keep is refused (nothing to train "
        + "on), exit 2 with nothing left")
    void handleInvalid() throws Exception {
        Path fixture = copy("ft_head_only_cls");
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = JSON.readTree(st.metadata().get("config"));
        Path input = dir.resolve("in.jsonl");
        writeIds(st, input, -1, 0);
        Files.writeString(input, Files.readString(input) + "{\"input_ids\": null, \"label\": 1}\n");
        String[] common = {"fine-tune", "--input", input.toString(), "--master", Cli.MASTER, "--ids-col",
            "input_ids", "--safetensors", fixture.toString(), "--prefix", "initial.", "--num-heads",
            config.get("num_heads").asText(), "--num-classes", "2", "--max-iter", "2"};
        Path kept = dir.resolve("kept");
        CommandLineRun keep = CommandLineRun.of(concat(common, "--output", kept.toString(), "--handle-invalid",
            "keep"));
        assertEquals(2, keep.exitCode, keep.err);
        assertTrue(keep.errorLines().get(0).contains("--handle-invalid keep"), keep.err);
        assertFalse(Files.exists(kept), "nothing at --output");
        CommandLineRun error = CommandLineRun.of(concat(common, "--output", dir.resolve("e").toString()));
        assertEquals(2, error.exitCode, "a null id row stops the fit by default: " + error.err);
        CommandLineRun skip = CommandLineRun.of(concat(common, "--output", dir.resolve("s").toString(),
            "--handle-invalid", "skip"));
        assertEquals(0, skip.exitCode, skip.err);
        assertEquals(3, skip.stepLines().size(), "steps 0, 1 and the final line: " + skip.stepLines());
    }

    @Test
    @DisplayName("--tol stops the run early: one line per i = 0 ... T, strictly increasing, the last with "
        + "training_accuracy")
    void tolStopsOnceEachLine() throws Exception {
        Path fixture = copy("ft_head_only_cls");
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = JSON.readTree(st.metadata().get("config"));
        Path input = writeIds(st, dir.resolve("in.jsonl"), -1, -1);
        // Any step improves the loss by less than 1e9 relative: the run stops before step 10, the fewest with tol.
        CommandLineRun run = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("model").toString(), "--master", Cli.MASTER, "--ids-col", "input_ids", "--safetensors",
            fixture.toString(), "--prefix", "initial.", "--num-heads", config.get("num_heads").asText(),
            "--num-classes", "2", "--trainable-layers", "0", "--max-iter", "15", "--tol", "1e9");
        assertEquals(0, run.exitCode, run.err);
        List<String> lines = run.stepLines();
        assertEquals(11, lines.size(), "steps 0 ... 9 and the final line, each once: " + lines);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = JSON.readTree(lines.get(i));
            assertEquals(i, line.get("iteration").asInt(), lines.toString());
            assertEquals(i == lines.size() - 1, line.has("training_accuracy"), lines.get(i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ids", "texts"})
    @DisplayName("--handle-invalid skip: a bad label after a skipped row is named by its own line")
    void skippedRowsKeepLines(String input) throws Exception {
        Path fixture = copy("ft_head_only_cls");
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = JSON.readTree(st.metadata().get("config"));
        Path file = dir.resolve("in.jsonl");
        int badLine = 4;
        List<String> args = new ArrayList<>(List.of("fine-tune", "--input", file.toString(), "--output",
            dir.resolve("model").toString(), "--master", Cli.MASTER, "--num-classes", "2", "--max-iter", "2",
            "--handle-invalid", "skip"));
        if (input.equals("ids")) {
            // Line 1 has null ids (skipped), line 4 label 7.
            writeIds(st, file, badLine, Integer.MIN_VALUE);
            List<String> lines = new ArrayList<>(Files.readAllLines(file));
            lines.set(0, "{\"input_ids\": null, \"label\": 0}");
            Files.write(file, lines);
            args.addAll(List.of("--ids-col", "input_ids", "--safetensors", fixture.toString(), "--prefix", "initial.",
                "--num-heads", config.get("num_heads").asText()));
        } else {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = 1; i <= 6; i++) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("text", i == 1 ? null : "Text number " + i + ".");
                row.put("label", i == badLine ? 7 : i % 2);
                rows.add(row);
            }
            Cli.writeJsonLines(file, rows);
            args.addAll(List.of("--trainable-layers", "0", "--max-length", "16"));
        }
        CommandLineRun run = CommandLineRun.of(args.toArray(new String[0]));
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        String message = run.errorLines().get(0);
        assertTrue(message.contains(file.getFileName() + ":" + badLine) || message.contains("line " + badLine),
            "names the bad label's own line " + badLine + ": " + message);
        assertTrue(message.contains("label"), message);
        assertFalse(Files.exists(dir.resolve("model")), "nothing at --output");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    @DisplayName("texts in, the bundled MiniLM's head fine-tuned; predict --model DIR classifies the texts, embed "
        + "--model DIR embeds them with the fine-tuned encoder and tokenizer")
    void textsThroughPredictAndEmbed() throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        String[] texts = {"The cat sat on the mat.", "Stocks fell sharply today.", "A dog barked at the cat.",
            "The market rallied after the news.", "Kittens love warm blankets.", "Bonds and shares slipped."};
        for (int i = 0; i < texts.length; i++) {
            rows.add(Map.of("text", texts[i], "label", i % 2));
        }
        Path input = dir.resolve("texts.jsonl");
        Cli.writeJsonLines(input, rows);
        Path model = dir.resolve("model");
        CommandLineRun fit = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            model.toString(), "--master", Cli.MASTER, "--trainable-layers", "0", "--step-size", "0.01",
            "--max-iter", "2", "--max-length", "16");
        assertEquals(0, fit.exitCode, fit.err);
        assertEquals(3, fit.stepLines().size(), fit.out);
        Path predicted = dir.resolve("predicted");
        CommandLineRun predict = CommandLineRun.of("predict", "--model", model.toString(), "--input",
            input.toString(), "--output", predicted.toString(), "--master", Cli.MASTER);
        assertEquals(0, predict.exitCode, predict.err);
        List<JsonNode> out = Cli.readJsonLines(predicted);
        assertEquals(texts.length, out.size());
        for (JsonNode row : out) {
            assertTrue(row.has("prediction") && row.get("probability").size() == 2, row.toString());
        }
        Path embedded = dir.resolve("embedded.jsonl");
        CommandLineRun embed = CommandLineRun.of("embed", "--model", model.toString(), "--input", input.toString(),
            "--output", embedded.toString(), "--master", Cli.MASTER, "--max-length", "16");
        assertEquals(0, embed.exitCode, embed.err);
        Path bundled = dir.resolve("bundled.jsonl");
        CommandLineRun plain = CommandLineRun.of("embed", "--input", input.toString(), "--output", bundled.toString(),
            "--master", Cli.MASTER, "--max-length", "16");
        assertEquals(0, plain.exitCode, plain.err);
        List<JsonNode> a = Cli.readJsonLines(embedded);
        List<JsonNode> b = Cli.readJsonLines(bundled);
        assertEquals(texts.length, a.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(b.get(i).get("input_ids"), a.get(i).get("input_ids"), "the pipeline's tokenizer: MiniLM's");
            assertEquals(384, a.get(i).get("embedding").size());
        }
        // Only the head trained (--trainable-layers 0): the encoder, and so the embeddings, are MiniLM's.
        assertEquals(b.get(0).get("embedding"), a.get(0).get("embedding"));
    }

    private Path copy(String name) throws IOException {
        return fixture(dir, name);
    }

    /** The fixture as a file in {@code dir} (a resource inside the library's test-jar has no path of its own). */
    static Path fixture(Path dir, String name) throws IOException {
        URL url = FineTuneCommandTest.class.getResource("/fixtures/finetune/" + name + ".safetensors");
        Path file = dir.resolve(name + ".safetensors");
        try (InputStream in = url.openStream()) {
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /**
     * The fixture's rows as {"input_ids": [...], "label": y, "weight": w}; the row on line {@code badLine}
     * (from 1) gets token id {@code badValue} at position 1, or -badValue - 1 ids when that is negative,
     * or label 7 for {@code Integer.MIN_VALUE}.
     */
    static Path writeIds(SafeTensors st, Path file, int badLine, int badValue) throws IOException {
        long[] ids = st.longs("input.ids");
        long[] lengths = st.longs("input.lengths");
        long[] labels = st.longs("input.label");
        double[] weights = st.has("input.weight") ? st.doubles("input.weight") : null;
        List<Object> rows = new ArrayList<>();
        int at = 0;
        for (int r = 0; r < lengths.length; r++) {
            List<Long> row = new ArrayList<>();
            for (int i = 0; i < lengths[r]; i++) {
                row.add(ids[at++]);
            }
            long label = labels[r];
            if (r + 1 == badLine) {
                if (badValue == Integer.MIN_VALUE) {
                    label = 7;
                } else if (badValue < 0) {
                    while (row.size() < -badValue - 1) {
                        row.add(5L);
                    }
                } else {
                    row.set(1, (long) badValue);
                }
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("input_ids", row);
            m.put("label", label);
            m.put("weight", weights == null ? 1.0 : weights[r]);
            rows.add(m);
        }
        Cli.writeJsonLines(file, rows);
        return file;
    }

    private static Path writeHead(SafeTensors st, JsonNode config, Path file) throws IOException {
        int k = config.get("num_classes").asInt(), e = config.get("hidden").asInt();
        Map<String, Tensor> head = new LinkedHashMap<>();
        head.put("classifier.weight", Tensor.f32(st.floats("initial.classifier.weight"), k, e));
        head.put("classifier.bias", Tensor.f32(st.floats("initial.classifier.bias"), k));
        SafeTensorsWriter.write(file, head, Map.of());
        return file;
    }
}
