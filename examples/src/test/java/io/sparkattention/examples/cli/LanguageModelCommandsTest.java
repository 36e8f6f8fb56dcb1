package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.GptCases;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perplexity}, {@code generate}, {@code describe DIR} and {@code heatmap --model} end to end on
 * Hugging Face GPT-2 directories: the reference cases' weights (PyTorch's log_probs and greedy ids),
 * and a tiny random model with GPT-2's real tokenizer for texts; the bad-input contract.
 */
class LanguageModelCommandsTest {

    @TempDir
    Path dir;

    /** Rows {@code id}, {@code input_ids} as JSON lines. */
    private Path idsRows(String name, int[][] rows) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", i);
            row.put("input_ids", rows[i]);
            out.add(row);
        }
        Path file = dir.resolve(name);
        Cli.writeJsonLines(file, out);
        return file;
    }

    private static CommandLineRun ok(String... args) {
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(0, run.exitCode, run.err);
        return run;
    }

    @Test
    @DisplayName("perplexity on gpt_score's weights: every log_prob within 1e-5 relative of PyTorch's float64, the "
        + "input's columns kept, tokens, perplexity and token_log_probs added")
    void perplexityAsPyTorch() {
        SafeTensors score = GptCases.open("gpt_score");
        Path model = GptCases.writeDirectory("gpt_score", dir.resolve("gpt_score"));
        int[][] rows = GptCases.rows(score);
        double[] expected = GptCases.doubles(score, "expected.log_prob");
        Path out = dir.resolve("scored.jsonl");
        CommandLineRun run = ok("perplexity", "--model", model.toString(), "--input",
            idsRows("rows.jsonl", rows).toString(), "--ids-col", "input_ids", "--token-log-probs", "--output",
            out.toString(), "--master", Cli.MASTER, "--partitions", "3");
        assertTrue(run.out.contains("perplexity: 8 rows written to " + out), run.out);
        List<JsonNode> scored = Cli.readJsonLines(out);
        assertEquals(rows.length, scored.size());
        for (int r = 0; r < rows.length; r++) {
            JsonNode row = scored.get(r);
            assertEquals(r, row.get("id").asInt(), "rows in input order");
            assertEquals(expected[r], row.get("log_prob").asDouble(), 1e-5 * Math.abs(expected[r]), "row " + r);
            assertEquals(rows[r].length - 1, row.get("tokens").asInt());
            assertEquals(Math.exp(-row.get("log_prob").asDouble() / (rows[r].length - 1)),
                row.get("perplexity").asDouble(), 1e-12);
            assertEquals(rows[r].length - 1, row.get("token_log_probs").size());
        }
    }

    @Test
    @DisplayName("generate on gpt_generate_greedy's weights: PyTorch's 12 greedy ids per prompt, the new ids only")
    void generateAsPyTorch() {
        SafeTensors greedy = GptCases.open("gpt_generate_greedy");
        Path model = GptCases.writeDirectory("gpt_generate_greedy", dir.resolve("greedy"));
        int[][] prompts = GptCases.rows(greedy);
        int n = GptCases.config(greedy).get("max_new_tokens").asInt();
        long[] expected = GptCases.longs(greedy, "expected.generated");
        Path out = dir.resolve("generated.jsonl");
        ok("generate", "--model", model.toString(), "--input", idsRows("prompts.jsonl", prompts).toString(),
            "--ids-col", "input_ids", "--max-new-tokens", Integer.toString(n), "--output", out.toString(),
            "--master", Cli.MASTER);
        List<JsonNode> generated = Cli.readJsonLines(out);
        for (int r = 0; r < prompts.length; r++) {
            JsonNode ids = generated.get(r).get("generated_ids");
            assertEquals(n, ids.size());
            for (int i = 0; i < n; i++) {
                assertEquals(expected[r * n + i], ids.get(i).asLong(), "prompt " + r + ", new id " + i);
            }
            assertFalse(generated.get(r).has("generated_text"), "no tokenizer, no text");
        }
    }

    /** A tiny random GPT-2 (2 layers, 32 wide, 4 heads, 64 positions) over GPT-2's 50,257 ids, with its tokenizer. */
    private Path tinyGpt2() throws IOException {
        GptConfig config = new GptConfig(2, 32, 4, 64, 50257, 128, 1e-5f, GptConfig.GELU_NEW, true);
        SplittableRandom random = new SplittableRandom(13);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : GptWeights.shapes(config).entrySet()) {
            long size = 1;
            for (long s : e.getValue()) {
                size *= s;
            }
            float[] t = new float[(int) size];
            boolean norm = e.getKey().contains("ln_") && e.getKey().endsWith("weight");
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) ((norm ? 1 : 0) + random.nextGaussian() * (norm ? 0.05 : 0.3));
            }
            tensors.put(e.getKey(), t);
        }
        Path model = dir.resolve("tiny-gpt2");
        GptModelFiles.write(new GptDecoder(GptWeights.of(config, tensors)), model);
        try (InputStream in = GptDecoder.class.getResourceAsStream("gpt2-tokenizer.json")) {
            Files.write(model.resolve("tokenizer.json"), in.readAllBytes());
        }
        return model;
    }

    private Path texts(String name, String column, String... texts) {
        List<Object> rows = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            rows.add(Map.of("id", i, column, texts[i]));
        }
        Path file = dir.resolve(name);
        Cli.writeJsonLines(file, rows);
        return file;
    }

    @Test
    @DisplayName("texts through the directory's tokenizer.json: perplexity from --text-col, sampled generate with "
        + "generated_text, the same rows under --partitions 1 and 3")
    void textsAndPartitions() throws IOException {
        Path model = tinyGpt2();
        Path in = texts("texts.jsonl", "text", "Hello world", "It is a truth universally acknowledged.", "A");
        Path scored = dir.resolve("ppl.jsonl");
        ok("perplexity", "--model", model.toString(), "--input", in.toString(), "--output", scored.toString(),
            "--master", Cli.MASTER);
        List<JsonNode> rows = Cli.readJsonLines(scored);
        assertEquals(List.of(1, 6, 0), List.of(rows.get(0).get("tokens").asInt(), rows.get(1).get("tokens").asInt(),
            rows.get(2).get("tokens").asInt()), "GPT-2's ids: 2, 7 and 1 tokens, nothing added");
        JsonNode none = rows.get(2).path("perplexity");
        assertTrue(none.isMissingNode() || none.isNull(), "a row of one token has no perplexity (JSON leaves the null out)");
        assertFalse(rows.get(0).has("text__token_ids"), "the command's own column is not written");

        Path prompts = texts("prompts.jsonl", "prompt", "Once upon a time", "The weather in Bath", "Mr. Darcy said",
            "Emma", "It rained");
        List<List<JsonNode>> outputs = new ArrayList<>();
        for (String partitions : new String[] {"1", "3"}) {
            Path out = dir.resolve("gen-" + partitions + ".jsonl");
            ok("generate", "--model", model.toString(), "--input", prompts.toString(), "--output", out.toString(),
                "--max-new-tokens", "5", "--temperature", "0.9", "--top-k", "50", "--top-p", "0.95", "--seed", "4",
                "--partitions", partitions, "--master", Cli.MASTER);
            outputs.add(Cli.readJsonLines(out));
        }
        assertEquals(outputs.get(0), outputs.get(1), "the same ids and text under --partitions 1 and 3");
        for (JsonNode row : outputs.get(0)) {
            assertEquals(5, row.get("generated_ids").size());
            assertTrue(row.get("generated_text").isTextual());
            assertTrue(row.has("prompt") && row.has("id"), "the input's columns are kept");
        }
    }

    @Test
    @DisplayName("describe DIR shows a GPT-2 directory's config; heatmap --model --text draws a layer's causal heads")
    void describeAndHeatmap() throws IOException {
        Path model = tinyGpt2();
        JsonNode json = Cli.JSON.readTree(ok("describe", model.toString()).out);
        assertEquals("GptLanguageModel", json.get("class").asText());
        assertEquals(2, json.get("layers").asInt());
        assertEquals(50257, json.get("vocabulary").asInt());
        assertEquals(64, json.get("positions").asInt());
        assertTrue(json.get("tokenizer").asBoolean());
        Path png = dir.resolve("heads.png");
        CommandLineRun run = ok("heatmap", "--model", model.toString(), "--text", "It is a truth universally "
            + "acknowledged", "--layer", "1", "--output", png.toString());
        assertTrue(Files.size(png) > 0);
        assertTrue(run.out.contains("4 heads + average, L=6, S=6"), run.out);
    }

    /** Exit 2, one error line holding {@code fragment}, no output left. */
    private void refused(String fragment, String... args) {
        List<String> before = Cli.listNames(dir);
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        assertTrue(run.errorLines().get(0).contains(fragment), run.errorLines().get(0));
        assertEquals(before, Cli.listNames(dir), "nothing left behind");
    }

    @Test
    @DisplayName("bad input exits 2 before any work, naming the file and line or the option; nothing left behind")
    void badInput() {
        Path model = GptCases.writeDirectory("gpt_score", dir.resolve("m"));
        String m = model.toString();
        String out = dir.resolve("out.jsonl").toString();
        Path outside = idsRows("outside.jsonl", new int[][] {{1, 2, 3}, {4, 97, 5}});
        refused(outside + ": line 2: column input_ids: token id 97 at position 1 is outside the model's vocabulary "
            + "[0, 97)", "perplexity", "--model", m, "--input", outside.toString(), "--ids-col", "input_ids",
            "--output", out, "--master", Cli.MASTER);
        Path longPrompt = idsRows("long.jsonl", new int[][] {{1, 2}, new int[60]});
        refused(longPrompt + ": line 2: column input_ids has 60 token ids, more than the 56 the model's 64 positions "
            + "leave", "generate", "--model", m, "--input", longPrompt.toString(), "--ids-col", "input_ids",
            "--max-new-tokens", "8", "--output", out, "--master", Cli.MASTER);
        String good = idsRows("good.jsonl", new int[][] {{1, 2}}).toString();
        String[] base = {"--model", m, "--input", good, "--ids-col", "input_ids", "--output", out};
        refused("--max-new-tokens must be >= 1, got 0", concat("generate", base, "--max-new-tokens", "0"));
        refused("--temperature must be a finite number >= 0", concat("generate", base, "--temperature", "-0.5"));
        refused("--top-p must be in (0, 1], got 0.0", concat("generate", base, "--top-p", "0"));
        refused("--top-p must be in (0, 1], got 1.5", concat("generate", base, "--top-p", "1.5"));
        refused("--max-new-tokens 64 leaves no room for a prompt", concat("generate", base, "--max-new-tokens", "64"));
        refused("--stride 65 is more than the model's 64 positions", concat("perplexity", base, "--stride", "65"));
        refused("--model " + m + " has no tokenizer.json, which --text-col needs", "perplexity", "--model", m,
            "--input", good, "--text-col", "text", "--output", out);
        refused("--text-col and --ids-col both given", concat("perplexity", base, "--text-col", "text"));
        refused("has no column nope (--ids-col)", "perplexity", "--model", m, "--input", good, "--ids-col", "nope",
            "--output", out, "--master", Cli.MASTER);
        refused("--model " + dir.resolve("none") + " is not a directory", "perplexity", "--model",
            dir.resolve("none").toString(), "--input", good, "--ids-col", "input_ids", "--output", out);
    }

    private static String[] concat(String command, String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(List.of(base));
        all.addAll(List.of(more));
        all.addAll(List.of("--master", Cli.MASTER));
        return all.toArray(new String[0]);
    }
}
