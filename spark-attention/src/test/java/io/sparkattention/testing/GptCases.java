package io.sparkattention.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The GPT-2 reference cases ({@code fixtures/gpt/*.safetensors}, PyTorch autograd in float64; see
 * {@code make_gpt_fixtures.py}'s docstring) as the stage and the command line take them: a Hugging
 * Face GPT-2 directory written from a case's starting weights ({@code config.json} with the case's
 * fields, {@code model.safetensors} with the tensors' names without prefix), its rows of ids and its
 * expected numbers.
 */
public final class GptCases {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String WEIGHTS_PREFIX = "initial.";

    private GptCases() {
    }

    /** A case's file, read whole (from the test resources, or the test-jar other modules use). */
    public static SafeTensors open(String name) {
        String resource = "/fixtures/gpt/" + name + ".safetensors";
        try (InputStream in = GptCases.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + resource);
            }
            return SafeTensors.fromBytes(in.readAllBytes(), resource);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The case's settings ({@code __metadata__.config}). */
    public static JsonNode config(SafeTensors st) {
        try {
            return JSON.readTree(st.metadata().get("config"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes the case's model as a Hugging Face GPT-2 directory: {@code config.json} (the case's
     * {@code n_*} fields, {@code model_type} gpt2) and {@code model.safetensors}.
     *
     * @param dir the directory, created if needed
     * @return {@code dir}
     */
    public static Path writeDirectory(String name, Path dir) {
        SafeTensors st = open(name);
        JsonNode c = config(st);
        ObjectNode config = JSON.createObjectNode().put("model_type", "gpt2");
        config.putArray("architectures").add("GPT2LMHeadModel");
        for (String field : new String[] {"n_layer", "n_embd", "n_head", "n_positions", "vocab_size", "n_inner",
            "layer_norm_epsilon", "activation_function"}) {
            config.set(field, c.get(field));
        }
        try {
            Files.createDirectories(dir);
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            for (String t : st.names()) {
                if (t.startsWith(WEIGHTS_PREFIX)) {
                    tensors.put(t.substring(WEIGHTS_PREFIX.length()), Tensor.f32(st.floats(t), st.shape(t)));
                }
            }
            SafeTensorsWriter.write(dir.resolve("model.safetensors"), tensors, Map.of("format", "pt"));
            Files.writeString(dir.resolve("config.json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(config));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    /** The case's rows of ids ({@code input.ids} cut by {@code input.lengths}). */
    public static int[][] rows(SafeTensors st) {
        try {
            long[] ids = st.longs("input.ids");
            long[] lengths = st.longs("input.lengths");
            int[][] rows = new int[lengths.length][];
            for (int r = 0, at = 0; r < rows.length; r++) {
                rows[r] = new int[(int) lengths[r]];
                for (int i = 0; i < rows[r].length; i++) {
                    rows[r][i] = (int) ids[at++];
                }
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A float64 or integer tensor of the case, as doubles. */
    public static double[] doubles(SafeTensors st, String name) {
        try {
            return st.doubles(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A tensor of the case, as longs. */
    public static long[] longs(SafeTensors st, String name) {
        try {
            return st.longs(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
