package io.sparkattention.gpt;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.kernel.Heads;

import java.io.Serializable;
import java.util.Objects;

/**
 * The architecture of a GPT-2-family decoder (Hugging Face's {@code GPT2LMHeadModel}):
 * {@code layers} pre-LayerNorm blocks of width {@code hidden}, {@code heads} causal attention heads
 * of {@code hidden / heads} columns, a feed-forward block {@code inner} wide with {@code gelu_new}
 * (tanh form) or {@code gelu} (exact erf), learned absolute positions up to {@code positions}, a
 * vocabulary of {@code vocabSize} ids and an LM head tied to the token embedding unless
 * {@code tiedHead} is false (a separate {@code lm_head.weight}).
 *
 * @param layers       blocks, ≥ 1 ({@code n_layer})
 * @param hidden       width E, ≥ 1 ({@code n_embd})
 * @param heads        attention heads H, ≥ 1, dividing E ({@code n_head})
 * @param positions    longest row, ≥ 1 ({@code n_positions})
 * @param vocabSize    ids accepted, {@code [0, vocabSize)}, ≥ 1 ({@code vocab_size})
 * @param inner        feed-forward width F, ≥ 1 ({@code n_inner}, 4·E when null)
 * @param layerNormEps ε of every LayerNorm, finite and &gt; 0 ({@code layer_norm_epsilon})
 * @param activation   {@value #GELU_NEW} or {@value #GELU} ({@code activation_function})
 * @param tiedHead     whether the LM head is the token embedding ({@code tie_word_embeddings})
 */
public record GptConfig(int layers, int hidden, int heads, int positions, int vocabSize, int inner,
                        float layerNormEps, String activation, boolean tiedHead) implements Serializable {

    /** GPT-2's tanh approximation of GELU. */
    public static final String GELU_NEW = "gelu_new";
    /** The exact (erf) GELU. */
    public static final String GELU = "gelu";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** @throws IllegalArgumentException naming the first field out of range */
    public GptConfig {
        positive("layers", layers);
        positive("hidden", hidden);
        positive("heads", heads);
        positive("positions", positions);
        positive("vocabSize", vocabSize);
        positive("inner", inner);
        Heads.headDim(hidden, heads, "heads", "hidden");
        if (!(layerNormEps > 0f) || Float.isInfinite(layerNormEps)) {
            throw new IllegalArgumentException("layerNormEps must be finite and > 0, got " + layerNormEps);
        }
        Objects.requireNonNull(activation, "activation");
        if (!activation.equals(GELU_NEW) && !activation.equals(GELU)) {
            throw new IllegalArgumentException("activation must be " + GELU_NEW + " or " + GELU + ", got "
                + activation);
        }
    }

    /** Columns per head, {@code hidden / heads}. */
    public int headDim() {
        return hidden / heads;
    }

    /**
     * The config of a Hugging Face {@code config.json} ({@code GPT2Config}): {@code n_layer},
     * {@code n_embd}, {@code n_head}, {@code n_positions}, {@code vocab_size} required;
     * {@code n_inner} (null: 4·n_embd), {@code layer_norm_epsilon} (1e-5),
     * {@code activation_function} ({@value #GELU_NEW}) and {@code tie_word_embeddings} (true)
     * optional, as in {@code GPT2Config}'s defaults. Other fields are ignored.
     *
     * @param source what the text is, for errors (a file name)
     * @throws IllegalArgumentException naming the field and {@code source} when a field is missing,
     *                                  not of its type, or describes blocks this library cannot run
     */
    public static GptConfig fromHuggingFaceJson(String json, String source) {
        Objects.requireNonNull(json, "json");
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + ": not JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(source + ": not a JSON object");
        }
        int layers = intField(root, "n_layer", source);
        int hidden = intField(root, "n_embd", source);
        int heads = intField(root, "n_head", source);
        int positions = intField(root, "n_positions", source);
        int vocab = intField(root, "vocab_size", source);
        JsonNode innerNode = root.get("n_inner");
        int inner = innerNode == null || innerNode.isNull() ? 4 * hidden : intField(root, "n_inner", source);
        float eps = root.has("layer_norm_epsilon") ? (float) numberField(root, "layer_norm_epsilon", source) : 1e-5f;
        String activation = GELU_NEW;
        if (root.has("activation_function")) {
            JsonNode a = root.get("activation_function");
            if (!a.isTextual() || !(a.asText().equals(GELU_NEW) || a.asText().equals(GELU))) {
                throw new IllegalArgumentException(source + ": activation_function " + a + " is not supported: the"
                    + " blocks run \"" + GELU_NEW + "\" or \"" + GELU + "\"");
            }
            activation = a.asText();
        }
        boolean tied = true;
        if (root.has("tie_word_embeddings")) {
            JsonNode t = root.get("tie_word_embeddings");
            if (!t.isBoolean()) {
                throw new IllegalArgumentException(source + ": tie_word_embeddings must be true or false, got " + t);
            }
            tied = t.asBoolean();
        }
        if (hidden >= 1 && heads >= 1 && hidden % heads != 0) {
            throw new IllegalArgumentException(source + ": n_embd " + hidden + " is not a multiple of n_head "
                + heads);
        }
        try {
            return new GptConfig(layers, hidden, heads, positions, vocab, inner, eps, activation, tied);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * This config as a Hugging Face {@code config.json} that {@code GPT2LMHeadModel.from_pretrained}
     * loads: {@code model_type} gpt2, {@code architectures} ["GPT2LMHeadModel"], every field above
     * and GPT-2's inference settings (no dropout, the attention scaled by 1/√d). No end-of-text id
     * is written: the model does not know its tokenizer's.
     */
    public String toHuggingFaceJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("model_type", "gpt2");
        o.putArray("architectures").add("GPT2LMHeadModel");
        o.put("n_layer", layers);
        o.put("n_embd", hidden);
        o.put("n_head", heads);
        o.put("n_positions", positions);
        o.put("n_ctx", positions);
        o.put("vocab_size", vocabSize);
        o.put("n_inner", inner);
        o.put("layer_norm_epsilon", Double.parseDouble(Float.toString(layerNormEps)));  // 1e-5, not 9.99…e-6
        o.put("activation_function", activation);
        o.put("tie_word_embeddings", tiedHead);
        o.put("resid_pdrop", 0.0);
        o.put("embd_pdrop", 0.0);
        o.put("attn_pdrop", 0.0);
        o.put("scale_attn_weights", true);
        o.put("scale_attn_by_inverse_layer_idx", false);
        o.put("reorder_and_upcast_attn", false);
        o.put("use_cache", true);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a config of numbers and strings always writes", e);
        }
    }

    private static int intField(JsonNode root, String name, String source) {
        JsonNode n = root.get(name);
        if (n == null || n.isNull()) {
            throw new IllegalArgumentException(source + ": field " + name + " is missing");
        }
        boolean whole = n.isIntegralNumber() || n.isNumber() && n.asDouble() == Math.rint(n.asDouble());
        if (!n.canConvertToInt() || !whole) {
            throw new IllegalArgumentException(source + ": field " + name + " must be an integer, got " + n);
        }
        int v = n.asInt();
        if (v < 1) {
            throw new IllegalArgumentException(source + ": field " + name + " must be >= 1, got " + v);
        }
        return v;
    }

    private static double numberField(JsonNode root, String name, String source) {
        JsonNode n = root.get(name);
        if (!n.isNumber()) {
            throw new IllegalArgumentException(source + ": field " + name + " must be a number, got " + n);
        }
        double v = n.asDouble();
        if (!(v > 0) || Double.isInfinite(v) || !((float) v > 0f)) {
            throw new IllegalArgumentException(source + ": field " + name + " must be finite and > 0, got " + n);
        }
        return v;
    }

    private static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, got " + value);
        }
    }
}
