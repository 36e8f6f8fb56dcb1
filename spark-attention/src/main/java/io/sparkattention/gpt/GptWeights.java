package io.sparkattention.gpt;

import io.sparkattention.bert.BertWeights;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The parameters of a GPT-2-family decoder as Hugging Face's {@code GPT2LMHeadModel} keeps them
 * (names without the {@code transformer.} prefix, GPT-2's Conv1D layout: a projection's weight is
 * {@code [in, out]}, row-major, the transpose of {@code nn.Linear}'s), as plain float arrays.
 *
 * <p>Names and shapes, with E = hidden, F = inner, V = vocabSize, P = positions, N = layer:
 * <pre>
 *   wte.weight  V×E        wpe.weight  P×E
 *   h.N.ln_1.weight / .bias            E          h.N.ln_2.weight / .bias      E
 *   h.N.attn.c_attn.weight / .bias     E×3E / 3E  (columns: q | k | v)
 *   h.N.attn.c_proj.weight / .bias     E×E / E
 *   h.N.mlp.c_fc.weight / .bias        E×F / F    h.N.mlp.c_proj.weight / .bias  F×E / E
 *   ln_f.weight / .bias                E
 *   lm_head.weight                     V×E        (nn.Linear layout; only when the head is not tied)
 * </pre>
 * Immutable by convention: the arrays are kept, not copied, and must not change afterwards.
 */
public final class GptWeights implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The token embedding, V×E (also the tied head's weight). */
    public static final String TOKEN_EMBEDDING = "wte.weight";
    /** The position embedding, P×E. */
    public static final String POSITION_EMBEDDING = "wpe.weight";
    /** The final LayerNorm's scale, E. */
    public static final String FINAL_NORM_WEIGHT = "ln_f.weight";
    /** The final LayerNorm's shift, E. */
    public static final String FINAL_NORM_BIAS = "ln_f.bias";
    /** An untied LM head's weight, V×E in nn.Linear layout. */
    public static final String HEAD_WEIGHT = "lm_head.weight";

    private final GptConfig config;
    private final Map<String, float[]> tensors;

    private GptWeights(GptConfig config, Map<String, float[]> tensors) {
        this.config = config;
        this.tensors = tensors;
    }

    /**
     * Checks that {@code tensors} holds exactly the tensors of {@link #shapes(GptConfig)}, each of
     * its size ({@value #HEAD_WEIGHT} only when the config's head is untied).
     *
     * @throws IllegalArgumentException naming the first tensor that is missing, extra or of the
     *                                  wrong size
     */
    public static GptWeights of(GptConfig config, Map<String, float[]> tensors) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(tensors, "tensors");
        Map<String, long[]> shapes = shapes(config);
        Map<String, float[]> kept = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            float[] t = tensors.get(e.getKey());
            if (t == null) {
                throw new IllegalArgumentException("tensor " + e.getKey() + " is missing");
            }
            if (t.length != size(e.getValue())) {
                throw new IllegalArgumentException("tensor " + e.getKey() + " has " + t.length + " values, expected "
                    + BertWeights.shapeText(e.getValue()));
            }
            kept.put(e.getKey(), t);
        }
        for (String name : tensors.keySet()) {
            if (!shapes.containsKey(name)) {
                throw new IllegalArgumentException("tensor " + name + " is not a parameter of " + config);
            }
        }
        return new GptWeights(config, Collections.unmodifiableMap(kept));
    }

    /** Every parameter's name and shape for {@code config}: embeddings, layer by layer, ln_f, an untied head. */
    public static Map<String, long[]> shapes(GptConfig config) {
        long E = config.hidden(), F = config.inner();
        Map<String, long[]> s = new LinkedHashMap<>();
        s.put(TOKEN_EMBEDDING, new long[] {config.vocabSize(), E});
        s.put(POSITION_EMBEDDING, new long[] {config.positions(), E});
        for (int n = 0; n < config.layers(); n++) {
            String p = layerPrefix(n);
            vector(s, p + "ln_1", E);
            conv1d(s, p + "attn.c_attn", E, 3 * E);
            conv1d(s, p + "attn.c_proj", E, E);
            vector(s, p + "ln_2", E);
            conv1d(s, p + "mlp.c_fc", E, F);
            conv1d(s, p + "mlp.c_proj", F, E);
        }
        vector(s, "ln_f", E);
        if (!config.tiedHead()) {
            s.put(HEAD_WEIGHT, new long[] {config.vocabSize(), E});
        }
        return s;
    }

    /** {@code h.N.}: the name prefix of layer N's parameters. */
    public static String layerPrefix(int n) {
        return "h." + n + ".";
    }

    private static void conv1d(Map<String, long[]> s, String module, long in, long out) {
        s.put(module + ".weight", new long[] {in, out});
        s.put(module + ".bias", new long[] {out});
    }

    private static void vector(Map<String, long[]> s, String module, long width) {
        s.put(module + ".weight", new long[] {width});
        s.put(module + ".bias", new long[] {width});
    }

    private static long size(long[] shape) {
        return Arrays.stream(shape).reduce(1L, (a, b) -> a * b);
    }

    public GptConfig config() {
        return config;
    }

    /** The tensors by name (no prefix), in {@link #shapes} order; the arrays themselves, not copies. */
    public Map<String, float[]> stateDict() {
        return tensors;
    }

    /**
     * One tensor.
     *
     * @throws IllegalArgumentException when the decoder has no tensor of that name
     */
    public float[] tensor(String name) {
        float[] t = tensors.get(name);
        if (t == null) {
            throw new IllegalArgumentException("no tensor " + name + " in " + config);
        }
        return t;
    }

    /** The LM head's weight, V×E in nn.Linear layout: the token embedding when tied. */
    public float[] headWeight() {
        return config.tiedHead() ? tensor(TOKEN_EMBEDDING) : tensor(HEAD_WEIGHT);
    }

    /** Layer {@code n}'s parameters (0-based). */
    public Layer layer(int n) {
        if (n < 0 || n >= config.layers()) {
            throw new IllegalArgumentException("layer " + n + " outside [0, " + config.layers() + ")");
        }
        String p = layerPrefix(n);
        return new Layer(tensor(p + "ln_1.weight"), tensor(p + "ln_1.bias"), tensor(p + "attn.c_attn.weight"),
            tensor(p + "attn.c_attn.bias"), tensor(p + "attn.c_proj.weight"), tensor(p + "attn.c_proj.bias"),
            tensor(p + "ln_2.weight"), tensor(p + "ln_2.bias"), tensor(p + "mlp.c_fc.weight"),
            tensor(p + "mlp.c_fc.bias"), tensor(p + "mlp.c_proj.weight"), tensor(p + "mlp.c_proj.bias"));
    }

    /** One block's parameters, Conv1D weights {@code [in, out]} (see the class comment). */
    public record Layer(float[] norm1Weight, float[] norm1Bias, float[] attentionWeight, float[] attentionBias,
                        float[] attentionProjectionWeight, float[] attentionProjectionBias, float[] norm2Weight,
                        float[] norm2Bias, float[] feedForwardWeight, float[] feedForwardBias,
                        float[] feedForwardProjectionWeight, float[] feedForwardProjectionBias) {
    }
}
