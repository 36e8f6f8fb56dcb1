package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.GptCases;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code train-lm} end to end: PyTorch's gpt_train_adamw_warmup_clip trajectory through the issue's
 * command line (loss lines and exported tensors), a new byte-level model from texts whose output
 * {@code perplexity --text-col} and {@code generate} load, and the bad-input contract.
 */
class TrainLmCommandTest {

    private static final String CASE = "gpt_train_adamw_warmup_clip";

    @TempDir
    Path dir;

    private Path idsRows(String name, int[][] rows) {
        List<Object> out = new ArrayList<>();
        for (int[] row : rows) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("input_ids", row);
            out.add(r);
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
    @DisplayName(CASE + " through train-lm --model DIR --ids-col input_ids --packing false ... --export-pytorch OUT: one "
        + "line per step within 1e-4 relative of PyTorch's losses, every exported tensor within 1e-4 of its largest "
        + "value, the output scored by perplexity")
    void fixtureThroughTheCommandLine() throws IOException {
        SafeTensors st = GptCases.open(CASE);
        JsonNode cfg = GptCases.config(st);
        Path model = GptCases.writeDirectory(CASE, dir.resolve("start"));
        Path input = idsRows("rows.jsonl", GptCases.rows(st));
        Path out = dir.resolve("trained");
        Path export = dir.resolve("export");
        CommandLineRun run = ok("train-lm", "--input", input.toString(), "--output", out.toString(), "--model",
            model.toString(), "--ids-col", "input_ids", "--packing", "false", "--solver", "adamw", "--step-size",
            cfg.get("step_size").asText(), "--weight-decay", cfg.get("weight_decay").asText(), "--warmup-steps",
            cfg.get("warmup_steps").asText(), "--max-grad-norm", cfg.get("max_grad_norm").asText(), "--dropout", "0",
            "--max-iter", cfg.get("steps").asText(), "--mini-batch-fraction", "1", "--tol", "0", "--export-pytorch",
            export.toString(), "--master", Cli.MASTER, "--partitions", "3");
        List<String> lines = run.outLines();
        double[] history = GptCases.doubles(st, "expected.loss_history");
        double last = GptCases.doubles(st, "expected.final_loss")[0];
        assertEquals(history.length + 1, lines.size(), run.out);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = Cli.JSON.readTree(lines.get(i));
            assertEquals(i, line.get("iteration").asInt());
            double expected = i < history.length ? history[i] : last;
            assertEquals(expected, line.get("loss").asDouble(), 1e-4 * expected, "line " + i);
            assertFalse(line.has("val_loss"), "no validation asked for");
        }
        SafeTensors exported = SafeTensors.read(export.resolve("model.safetensors"));
        GptConfig config = GptConfig.fromHuggingFaceJson(Files.readString(export.resolve("config.json")), "export");
        int width = config.hidden();
        for (String name : GptWeights.shapes(config).keySet()) {
            double[] want = GptCases.doubles(st, "expected.final." + name);
            float[] got = exported.floats(name);
            double largest = 0;
            for (double w : want) {
                largest = Math.max(largest, Math.abs(w));
            }
            for (int i = 0; i < want.length; i++) {
                boolean keyBias = name.endsWith("attn.c_attn.bias") && i >= width && i < 2 * width;
                double bound = keyBias ? 8 * cfg.get("step_size").asDouble() : 1e-4 * largest;
                assertTrue(Math.abs(got[i] - want[i]) <= bound, name + "[" + i + "] = " + got[i] + ", PyTorch " + want[i]);
            }
        }
        Path scored = dir.resolve("scored.jsonl");
        ok("perplexity", "--model", out.toString(), "--input", input.toString(), "--ids-col", "input_ids", "--output",
            scored.toString(), "--master", Cli.MASTER);
        assertEquals(GptCases.rows(st).length, Cli.readJsonLines(scored).size());
    }

    @Test
    @DisplayName("a new byte-level model from texts: val_loss on the lines of steps 0, 2, 4 and the last; the output "
        + "has the byte tokenizer, so perplexity --text-col and generate take texts")
    void newModelFromTexts() {
        List<Object> rows = new ArrayList<>();
        for (int r = 0; r < 30; r++) {
            rows.add(Map.of("text", "Emma Woodhouse, handsome, clever, and rich, row " + r + "."));
        }
        Path input = dir.resolve("texts.jsonl");
        Cli.writeJsonLines(input, rows);
        Path out = dir.resolve("lm");
        CommandLineRun run = ok("train-lm", "--input", input.toString(), "--output", out.toString(), "--n-layer", "1",
            "--n-embd", "16", "--n-head", "2", "--block-size", "32", "--tokenizer", "bytes", "--validation-fraction",
            "0.25", "--eval-every", "2", "--step-size", "1e-2", "--schedule", "cosine", "--max-iter", "5",
            "--rows-per-step", "8", "--seed", "3", "--master", Cli.MASTER);
        List<String> lines = run.outLines();
        assertEquals(6, lines.size(), run.out);
        for (int i = 0; i < lines.size(); i++) {
            boolean evaluated = i % 2 == 0 || i == 5;
            assertEquals(evaluated, lines.get(i).contains("\"val_loss\": "), lines.get(i));
        }
        assertTrue(Files.isRegularFile(out.resolve("tokenizer.json")));
        Path scored = dir.resolve("scored.jsonl");
        ok("perplexity", "--model", out.toString(), "--input", input.toString(), "--text-col", "text", "--output",
            scored.toString(), "--master", Cli.MASTER);
        Path prompts = dir.resolve("prompts.jsonl");
        Cli.writeJsonLines(prompts, List.of(Map.of("prompt", "Emma ")));
        Path generated = dir.resolve("generated.jsonl");
        ok("generate", "--model", out.toString(), "--input", prompts.toString(), "--max-new-tokens", "6", "--output",
            generated.toString(), "--master", Cli.MASTER);
        assertEquals(6, Cli.readJsonLines(generated).get(0).get("generated_ids").size());
    }

    private void refused(String fragment, String... args) {
        List<String> before = Cli.listNames(dir);
        CommandLineRun run = CommandLineRun.of(args);
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        assertTrue(run.errorLines().get(0).contains(fragment), run.errorLines().get(0));
        assertEquals(before, Cli.listNames(dir), "nothing left behind");
    }

    @Test
    @DisplayName("bad input exits 2 naming the file and line or the option, nothing left at --output or "
        + "--export-pytorch")
    void badInput() {
        String model = GptCases.writeDirectory(CASE, dir.resolve("m")).toString();
        Path outside = idsRows("outside.jsonl", new int[][] {{1, 2, 3}, {4, 97, 5}});
        String out = dir.resolve("out").toString();
        String export = dir.resolve("export").toString();
        refused(outside + ": line 2: column input_ids: token id 97 at position 1 is outside the model's vocabulary",
            "train-lm", "--input", outside.toString(), "--output", out, "--model", model, "--ids-col", "input_ids",
            "--packing", "false", "--max-iter", "1", "--export-pytorch", export, "--master", Cli.MASTER);
        Path tooLong = idsRows("long.jsonl", new int[][] {{1, 2}, new int[65]});
        refused(tooLong + ": line 2: column input_ids has 65 token ids, more than the model's 64 positions",
            "train-lm", "--input", tooLong.toString(), "--output", out, "--model", model, "--ids-col", "input_ids",
            "--packing", "false", "--max-iter", "1", "--master", Cli.MASTER);
        String good = idsRows("good.jsonl", new int[][] {{1, 2, 3}}).toString();
        refused("--model " + model + " continues a model with its own shape", "train-lm", "--input", good, "--output",
            out, "--model", model, "--n-layer", "2");
        refused("--eval-every 5 needs held-out sequences", "train-lm", "--input", good, "--output", out,
            "--eval-every", "5");
        refused("--rows-per-step and --mini-batch-fraction both given", "train-lm", "--input", good, "--output", out,
            "--rows-per-step", "4", "--mini-batch-fraction", "0.5");
        refused("--n-embd 10 is not divisible by --n-head 4", "train-lm", "--input", good, "--output", out,
            "--n-embd", "10", "--n-head", "4");
        refused("--block-size 65 is more than the 64 positions", "train-lm", "--input", good, "--output", out,
            "--model", model, "--ids-col", "input_ids", "--block-size", "65");
        refused("--model " + model + " has no tokenizer.json, which --text-col needs", "train-lm", "--input", good,
            "--output", out, "--model", model);
        refused("--packing: ", "train-lm", "--input", good, "--output", out, "--packing", "maybe");
        refused("make no block of --block-size 8", "train-lm", "--input", good, "--output", out, "--model", model,
            "--ids-col", "input_ids", "--block-size", "8", "--max-iter", "1", "--master", Cli.MASTER);
    }
}
