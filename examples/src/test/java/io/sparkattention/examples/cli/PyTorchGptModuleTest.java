package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptGeneration;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped PyTorch GPT-2 ({@code examples/python/spark_attention_gpt.py}) on model directories
 * that {@link GptModelFiles#write} makes of the GPT fixtures' weights: {@code load_gpt2(dir)} gives
 * the library's token log-probabilities within 1e-5 (relative to the value, or absolute below 1)
 * and its greedy ids, on rows up to {@code n_positions}, on rows longer than it (sliding windows),
 * and on the same directory with every tensor named {@code transformer.*}; and it matches the
 * fixtures' float64 PyTorch references (log_prob within 1e-5 relative, greedy ids equal). Needs a
 * {@code python3} with {@code torch}; without one the test is skipped, and says so.
 */
class PyTorchGptModuleTest {

    private static final double TOLERANCE = 1e-5;
    private static final String SCORE = "gpt_score", GREEDY = "gpt_generate_greedy";
    /** Window step of the rows longer than the fixtures' 64 positions. */
    private static final int STRIDE = 24;

    private static String python;

    @TempDir
    Path dir;

    @BeforeAll
    static void findPython() throws Exception {
        for (String candidate : PyTorchReferenceModuleTest.PYTHONS) {
            if (PyTorchBertModuleTest.run(List.of(candidate, "-c", "import torch")).startsWith("0")) {
                python = candidate;
                break;
            }
        }
    }

    @Test
    @DisplayName("load_gpt2(GptModelFiles.write(...)) scores and generates as the library and the fixtures do")
    void moduleMatchesTheLibraryAndTheFixtures() throws Exception {
        assumeTrue(python != null, "skipped: no python3 with torch (tried "
            + String.join(", ", PyTorchReferenceModuleTest.PYTHONS) + "; apt-get install python3-torch)");
        SafeTensors score = fixture(SCORE), greedy = fixture(GREEDY);
        GptDecoder scorer = decoder(score), generator = decoder(greedy);
        List<int[]> rows = PyTorchBertModuleTest.rows(score);
        // rows past n_positions: every fixture row run on after itself, to 1.5x and 2x the positions
        int positions = scorer.config().positions();
        List<int[]> longRows = List.of(repeat(rows, positions * 3 / 2 + 1), repeat(rows, 2 * positions));
        List<int[]> prompts = PyTorchBertModuleTest.rows(greedy);
        int newTokens = Cli.JSON.readTree(greedy.metadata().get("config")).get("max_new_tokens").asInt();

        Path scoreDir = dir.resolve("score"), greedyDir = dir.resolve("greedy"), prefixed = dir.resolve("prefixed");
        GptModelFiles.write(scorer, scoreDir);
        GptModelFiles.write(generator, greedyDir);
        writePrefixed(scoreDir, prefixed);
        List<Map<String, Object>> job = List.of(
            job("short", scoreDir, rows, null, List.of(), newTokens),
            job("long", scoreDir, longRows, STRIDE, List.of(), newTokens),
            job("prefixed", prefixed, rows, null, List.of(), newTokens),
            job("greedy", greedyDir, List.of(), null, prompts, newTokens));
        JsonNode out = runModule(job);

        double[] expected = score.doubles("expected.log_prob");
        for (String name : List.of("short", "prefixed")) {
            for (int r = 0; r < rows.size(); r++) {
                double[] py = doubles(out.get(name).get("log_probs").get(r));
                assertClose(scorer.tokenLogProbs(rows.get(r), STRIDE), py, name + " row " + r);
                double sum = 0;
                for (double x : py) {
                    sum += x;
                }
                assertTrue(Math.abs(sum - expected[r]) <= TOLERANCE * Math.abs(expected[r]),
                    name + " row " + r + ": log_prob " + sum + ", fixture " + expected[r]);
            }
        }
        for (int r = 0; r < longRows.size(); r++) {
            assertClose(scorer.tokenLogProbs(longRows.get(r), STRIDE),
                doubles(out.get("long").get("log_probs").get(r)), "long row " + r);
        }
        int[][] ours = generator.generate(prompts.toArray(int[][]::new), new long[prompts.size()],
            GptGeneration.greedy(newTokens));
        long[] fixtureIds = greedy.longs("expected.generated");
        for (int r = 0; r < prompts.size(); r++) {
            JsonNode py = out.get("greedy").get("greedy").get(r);
            int[] theirs = new int[py.size()];
            for (int i = 0; i < theirs.length; i++) {
                theirs[i] = py.get(i).asInt();
                assertEquals(fixtureIds[r * newTokens + i], theirs[i], "prompt " + r + " step " + i + " vs the fixture");
            }
            assertArrayEquals(ours[r], theirs, "prompt " + r + " vs the library");
        }
    }

    private static void assertClose(double[] java, double[] py, String what) {
        assertEquals(java.length, py.length, what + ": values");
        for (int t = 0; t < java.length; t++) {
            assertTrue(Math.abs(java[t] - py[t]) <= TOLERANCE * Math.max(1, Math.abs(java[t])),
                what + " token " + (t + 1) + ": library " + java[t] + ", module " + py[t]);
        }
    }

    /** The fixture's decoder: its config (the Hugging Face fields of its metadata) and initial weights. */
    private static GptDecoder decoder(SafeTensors st) throws Exception {
        GptConfig config = GptConfig.fromHuggingFaceJson(st.metadata().get("config"), st.source());
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (String name : st.names()) {
            if (name.startsWith("initial.")) {
                tensors.put(name.substring("initial.".length()), st.floats(name));
            }
        }
        return new GptDecoder(GptWeights.of(config, tensors));
    }

    /** A copy of a model directory whose tensors are all named {@code transformer.*}. */
    private static void writePrefixed(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        Files.copy(from.resolve("config.json"), to.resolve("config.json"));
        SafeTensors st = SafeTensors.read(from.resolve("model.safetensors"));
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (String name : st.names()) {
            tensors.put("transformer." + name, Tensor.f32(st.floats(name), st.shape(name)));
        }
        SafeTensorsWriter.write(to.resolve("model.safetensors"), tensors, Map.of());
    }

    private SafeTensors fixture(String name) throws Exception {
        Path file = dir.resolve(name + ".safetensors");
        try (InputStream in = getClass().getResourceAsStream("/fixtures/gpt/" + name + ".safetensors")) {
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return SafeTensors.read(file);
    }

    private static Map<String, Object> job(String name, Path model, List<int[]> rows, Integer stride,
                                           List<int[]> prompts, int newTokens) {
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("name", name);
        one.put("dir", model.toString());
        one.put("rows", rows);
        one.put("stride", stride);
        one.put("prompts", prompts);
        one.put("max_new_tokens", newTokens);
        return one;
    }

    private JsonNode runModule(List<Map<String, Object>> job) throws Exception {
        Path jobFile = dir.resolve("job.json"), outFile = dir.resolve("out.json");
        Cli.JSON.writeValue(jobFile.toFile(), job);
        Path script = dir.resolve("gpt_outputs.py");
        try (InputStream in = getClass().getResourceAsStream("/python/gpt_outputs.py")) {
            Files.copy(in, script);
        }
        Path moduleDir = Path.of(System.getProperty("user.dir")).resolve("python");
        if (!Files.isDirectory(moduleDir)) {
            moduleDir = Path.of(System.getProperty("user.dir")).resolve("examples").resolve("python");
        }
        String r = PyTorchBertModuleTest.run(List.of(python, script.toString(), moduleDir.toString(), jobFile.toString(),
            outFile.toString()));
        assertTrue(r.startsWith("0"), r);
        return Cli.JSON.readTree(outFile.toFile());
    }

    /** The rows' ids one after the other, over and over, cut at {@code length}. */
    private static int[] repeat(List<int[]> rows, int length) {
        int[] out = new int[length];
        int at = 0;
        while (at < length) {
            for (int[] row : rows) {
                for (int id : row) {
                    if (at < length) {
                        out[at++] = id;
                    }
                }
            }
        }
        return out;
    }

    private static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }
}
