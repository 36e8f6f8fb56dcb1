package io.sparkattention.io;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptFixture;
import io.sparkattention.gpt.GptWeights;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Hugging Face GPT-2 model directory (config.json + model.safetensors) read and written: the
 * gpt_score and gpt_generate_greedy fixtures through a directory, a written directory read back
 * bit for bit, GPT2LMHeadModel's prefixed names with the attn.bias buffers of older checkpoints,
 * an untied head, and the refusals naming the file, the tensor or the config field.
 */
class GptModelFilesTest {

    @TempDir
    Path dir;

    @Test
    void aDirectoryOfTheScoreFixtureScoresAsPyTorch() throws IOException {
        GptFixture f = GptFixture.load("gpt_score");
        GptModelFiles.write(new GptDecoder(f.weights), dir);
        GptDecoder decoder = GptModelFiles.read(dir);
        assertEquals(f.config, decoder.config());
        double[] expected = f.doubles("expected.log_prob");
        double[][] lp = decoder.tokenLogProbs(f.rows, 1);
        for (int r = 0; r < f.rows.length; r++) {
            double sum = Arrays.stream(lp[r]).sum();
            assertTrue(Math.abs(sum - expected[r]) <= 1e-5 * Math.abs(expected[r]), "row " + r + ": " + sum
                + " vs " + expected[r]);
        }
        int V = f.config.vocabSize();
        double[] all = f.doubles("expected.logits");
        float[] logits = decoder.logits(f.rows[0]);
        for (int t = 0; t < f.rows[0].length; t++) {
            GptFixture.assertRowClose(Arrays.copyOfRange(all, t * V, (t + 1) * V), logits, t * V, 1e-5,
                "position " + t);
        }
        assertFalse(GptModelFiles.tokenizer(dir).isPresent(), "no tokenizer.json in the directory");
        Files.writeString(dir.resolve("tokenizer.json"), "{}");
        assertEquals(dir.resolve("tokenizer.json"), GptModelFiles.tokenizer(dir).orElseThrow());
    }

    @Test
    void aWrittenDirectoryReadsBackBitForBit() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        GptDecoder original = new GptDecoder(f.weights);
        GptModelFiles.write(original, dir);
        GptDecoder copy = GptModelFiles.read(dir);
        assertEquals(original.config(), copy.config());
        assertEquals(original.weights().stateDict().keySet(), copy.weights().stateDict().keySet());
        for (Map.Entry<String, float[]> e : original.weights().stateDict().entrySet()) {
            assertArrayEquals(e.getValue(), copy.weights().tensor(e.getKey()), e.getKey());
        }
        assertArrayEquals(original.logits(f.rows[2]), copy.logits(f.rows[2]));
        String json = Files.readString(dir.resolve(GptModelFiles.CONFIG));
        assertTrue(json.contains("\"model_type\" : \"gpt2\"") && json.contains("GPT2LMHeadModel"), json);
        assertEquals(f.config, GptConfig.fromHuggingFaceJson(json, "config.json"));
    }

    @Test
    void prefixedNamesAndAttentionBiasBuffersAreRead() throws IOException {
        GptFixture f = GptFixture.load("gpt_score");
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        Map<String, long[]> shapes = GptWeights.shapes(f.config);
        int P = f.config.positions();
        for (Map.Entry<String, float[]> e : f.weights.stateDict().entrySet()) {
            tensors.put("transformer." + e.getKey(), Tensor.f32(e.getValue(), shapes.get(e.getKey())));
        }
        for (int n = 0; n < f.config.layers(); n++) {
            tensors.put("transformer.h." + n + ".attn.bias", Tensor.f32(new float[P * P], 1, 1, P, P));
            tensors.put("transformer.h." + n + ".attn.masked_bias", Tensor.f32(new float[] {-1e4f}));
        }
        tensors.put("lm_head.weight", Tensor.f32(f.weights.tensor("wte.weight"), shapes.get("wte.weight")));
        SafeTensorsWriter.write(dir.resolve("model.safetensors"), tensors, Map.of("format", "pt"));
        Files.writeString(dir.resolve("config.json"), f.config.toHuggingFaceJson());
        GptDecoder decoder = GptModelFiles.read(dir);
        assertTrue(decoder.config().tiedHead(), "an lm_head.weight equal to wte is the tied head");
        assertArrayEquals(new GptDecoder(f.weights).logits(f.rows[3]), decoder.logits(f.rows[3]));
    }

    @Test
    void anUntiedHeadIsHonouredAndWrittenBack() throws IOException {
        GptFixture f = GptFixture.load("gpt_score");
        GptConfig c = f.config;
        GptConfig untied = new GptConfig(c.layers(), c.hidden(), c.heads(), c.positions(), c.vocabSize(), c.inner(),
            c.layerNormEps(), c.activation(), false);
        Map<String, float[]> tensors = new LinkedHashMap<>(f.weights.stateDict());
        float[] head = f.weights.tensor("wte.weight").clone();
        for (int i = 0; i < head.length; i++) {
            head[i] *= -0.5f;
        }
        tensors.put("lm_head.weight", head);
        GptDecoder decoder = new GptDecoder(GptWeights.of(untied, tensors));
        GptModelFiles.write(decoder, dir);
        assertTrue(Files.readString(dir.resolve("config.json")).contains("\"tie_word_embeddings\" : false"));
        GptDecoder copy = GptModelFiles.read(dir);
        assertFalse(copy.config().tiedHead());
        float[] tied = new GptDecoder(f.weights).logits(f.rows[2]);
        float[] logits = copy.logits(f.rows[2]);
        assertArrayEquals(decoder.logits(f.rows[2]), logits);
        assertFalse(Arrays.equals(tied, logits), "the untied head is the one used");
    }

    @Test
    void refusalsNameTheFileTheTensorAndTheField() throws IOException {
        GptFixture f = GptFixture.load("gpt_score");
        NoSuchFileException noConfig = assertThrows(NoSuchFileException.class, () -> GptModelFiles.read(dir));
        assertTrue(noConfig.getMessage().contains("config.json"), noConfig.getMessage());
        Files.writeString(dir.resolve("config.json"), f.config.toHuggingFaceJson());
        NoSuchFileException noWeights = assertThrows(NoSuchFileException.class, () -> GptModelFiles.read(dir));
        assertTrue(noWeights.getMessage().contains("model.safetensors"), noWeights.getMessage());

        Map<String, Tensor> tensors = new LinkedHashMap<>();
        Map<String, long[]> shapes = GptWeights.shapes(f.config);
        for (Map.Entry<String, float[]> e : f.weights.stateDict().entrySet()) {
            if (!e.getKey().equals("h.1.mlp.c_fc.bias")) {
                tensors.put(e.getKey(), Tensor.f32(e.getValue(), shapes.get(e.getKey())));
            }
        }
        SafeTensorsWriter.write(dir.resolve("model.safetensors"), tensors, null);
        TensorFormatException missing = assertThrows(TensorFormatException.class, () -> GptModelFiles.read(dir));
        assertEquals("h.1.mlp.c_fc.bias", missing.tensor());
        assertTrue(missing.getMessage().contains("model.safetensors"), missing.getMessage());

        float[] w = f.weights.tensor("h.0.attn.c_attn.weight");
        tensors.put("h.1.mlp.c_fc.bias", Tensor.f32(f.weights.tensor("h.1.mlp.c_fc.bias"),
            shapes.get("h.1.mlp.c_fc.bias")));
        tensors.put("h.0.attn.c_attn.weight", Tensor.f32(w, 3L * f.config.hidden(), f.config.hidden()));
        SafeTensorsWriter.write(dir.resolve("model.safetensors"), tensors, null);
        TensorFormatException misShaped = assertThrows(TensorFormatException.class, () -> GptModelFiles.read(dir));
        assertEquals("h.0.attn.c_attn.weight", misShaped.tensor());
        assertTrue(misShaped.getMessage().contains("96×32") && misShaped.getMessage().contains("32×96"),
            misShaped.getMessage());

        String json = f.config.toHuggingFaceJson();
        for (String[] bad : new String[][] {
            {"\"n_head\" : 4", "\"n_head\" : 5", "n_embd 32 is not a multiple of n_head 5"},
            {"\"activation_function\" : \"gelu_new\"", "\"activation_function\" : \"relu\"", "activation_function"},
            {"\"n_layer\" : 2,", "", "n_layer is missing"},
            {"\"layer_norm_epsilon\" : 1.0E-5", "\"layer_norm_epsilon\" : -1", "layer_norm_epsilon"},
        }) {
            assertTrue(json.contains(bad[0]), bad[0] + " in " + json);
            Files.writeString(dir.resolve("config.json"), json.replace(bad[0], bad[1]), StandardCharsets.UTF_8);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GptModelFiles.read(dir));
            assertTrue(e.getMessage().contains(bad[2]) && e.getMessage().contains("config.json"), e.getMessage());
        }
    }
}
