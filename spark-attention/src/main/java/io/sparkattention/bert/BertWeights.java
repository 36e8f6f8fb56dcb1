package io.sparkattention.bert;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The parameters of a BERT-family encoder under Hugging Face's {@code BertModel} names, in
 * PyTorch's layout (a linear weight is {@code out×in}, row-major), as plain float arrays.
 *
 * <p>Names and shapes, with E = hidden, F = intermediate, N = layer index:
 * <pre>
 *   embeddings.word_embeddings.weight                      vocabSize×E
 *   embeddings.position_embeddings.weight                  maxPositions×E
 *   embeddings.token_type_embeddings.weight                typeVocabSize×E
 *   embeddings.LayerNorm.weight / .bias                    E
 *   encoder.layer.N.attention.self.query.weight / .bias    E×E / E     (also key, value)
 *   encoder.layer.N.attention.output.dense.weight / .bias  E×E / E
 *   encoder.layer.N.attention.output.LayerNorm.weight / .bias  E
 *   encoder.layer.N.intermediate.dense.weight / .bias      F×E / F
 *   encoder.layer.N.output.dense.weight / .bias            E×F / E
 *   encoder.layer.N.output.LayerNorm.weight / .bias        E
 * </pre>
 * Immutable by convention: the arrays are kept, not copied, and must not change afterwards.
 */
public final class BertWeights implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Name of the word (token id) embedding, vocabSize×E. */
    public static final String WORD_EMBEDDINGS = "embeddings.word_embeddings.weight";
    /** Name of the absolute position embedding, maxPositions×E. */
    public static final String POSITION_EMBEDDINGS = "embeddings.position_embeddings.weight";
    /** Name of the token type embedding, typeVocabSize×E. */
    public static final String TOKEN_TYPE_EMBEDDINGS = "embeddings.token_type_embeddings.weight";
    /** Name of the embeddings' LayerNorm scale, E. */
    public static final String EMBEDDINGS_NORM_WEIGHT = "embeddings.LayerNorm.weight";
    /** Name of the embeddings' LayerNorm shift, E. */
    public static final String EMBEDDINGS_NORM_BIAS = "embeddings.LayerNorm.bias";

    private final BertConfig config;
    private final Map<String, float[]> tensors;

    /**
     * Checks that {@code tensors} holds exactly the tensors of {@link #shapes(BertConfig)}, each of
     * its size.
     *
     * @throws IllegalArgumentException naming the first tensor that is missing, extra or of the
     *                                  wrong size
     */
    public BertWeights(BertConfig config, Map<String, float[]> tensors) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(tensors, "tensors");
        Map<String, long[]> shapes = shapes(config);
        Map<String, float[]> kept = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            float[] t = tensors.get(e.getKey());
            if (t == null) {
                throw new IllegalArgumentException("tensor " + e.getKey() + " is missing");
            }
            long size = Arrays.stream(e.getValue()).reduce(1L, (a, b) -> a * b);
            if (t.length != size) {
                throw new IllegalArgumentException("tensor " + e.getKey() + " has " + t.length + " values, expected "
                    + shapeText(e.getValue()));
            }
            kept.put(e.getKey(), t);
        }
        for (String name : tensors.keySet()) {
            if (!shapes.containsKey(name)) {
                throw new IllegalArgumentException("tensor " + name + " is not a parameter of " + config);
            }
        }
        this.tensors = Collections.unmodifiableMap(kept);
    }

    /** Every parameter's name and shape for {@code config}, embeddings first, then layer by layer. */
    public static Map<String, long[]> shapes(BertConfig config) {
        long E = config.hidden(), F = config.intermediate();
        Map<String, long[]> s = new LinkedHashMap<>();
        s.put(WORD_EMBEDDINGS, new long[] {config.vocabSize(), E});
        s.put(POSITION_EMBEDDINGS, new long[] {config.maxPositions(), E});
        s.put(TOKEN_TYPE_EMBEDDINGS, new long[] {config.typeVocabSize(), E});
        s.put(EMBEDDINGS_NORM_WEIGHT, new long[] {E});
        s.put(EMBEDDINGS_NORM_BIAS, new long[] {E});
        for (int n = 0; n < config.layers(); n++) {
            linear(s, layerPrefix(n) + "attention.self.query", E, E);
            linear(s, layerPrefix(n) + "attention.self.key", E, E);
            linear(s, layerPrefix(n) + "attention.self.value", E, E);
            linear(s, layerPrefix(n) + "attention.output.dense", E, E);
            norm(s, layerPrefix(n) + "attention.output.LayerNorm", E);
            linear(s, layerPrefix(n) + "intermediate.dense", F, E);
            linear(s, layerPrefix(n) + "output.dense", E, F);
            norm(s, layerPrefix(n) + "output.LayerNorm", E);
        }
        return s;
    }

    /** {@code encoder.layer.N.}: the name prefix of layer N's parameters. */
    public static String layerPrefix(int n) {
        return "encoder.layer." + n + ".";
    }

    private static void linear(Map<String, long[]> s, String module, long out, long in) {
        s.put(module + ".weight", new long[] {out, in});
        s.put(module + ".bias", new long[] {out});
    }

    private static void norm(Map<String, long[]> s, String module, long width) {
        s.put(module + ".weight", new long[] {width});
        s.put(module + ".bias", new long[] {width});
    }

    /** A shape as {@code a×b}. */
    public static String shapeText(long[] shape) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < shape.length; i++) {
            b.append(i == 0 ? "" : "×").append(shape[i]);
        }
        return shape.length == 0 ? "a scalar" : b.toString();
    }

    public BertConfig config() {
        return config;
    }

    /** The tensors by name, in {@link #shapes} order; the arrays themselves, not copies. */
    public Map<String, float[]> tensors() {
        return tensors;
    }

    /**
     * One tensor.
     *
     * @throws IllegalArgumentException when the encoder has no tensor of that name
     */
    public float[] tensor(String name) {
        float[] t = tensors.get(name);
        if (t == null) {
            throw new IllegalArgumentException("no tensor " + name + " in " + config);
        }
        return t;
    }

    /** Layer {@code n}'s parameters (0-based). */
    public Layer layer(int n) {
        if (n < 0 || n >= config.layers()) {
            throw new IllegalArgumentException("layer " + n + " outside [0, " + config.layers() + ")");
        }
        String p = layerPrefix(n);
        return new Layer(tensor(p + "attention.self.query.weight"), tensor(p + "attention.self.query.bias"),
            tensor(p + "attention.self.key.weight"), tensor(p + "attention.self.key.bias"),
            tensor(p + "attention.self.value.weight"), tensor(p + "attention.self.value.bias"),
            tensor(p + "attention.output.dense.weight"), tensor(p + "attention.output.dense.bias"),
            tensor(p + "attention.output.LayerNorm.weight"), tensor(p + "attention.output.LayerNorm.bias"),
            tensor(p + "intermediate.dense.weight"), tensor(p + "intermediate.dense.bias"),
            tensor(p + "output.dense.weight"), tensor(p + "output.dense.bias"),
            tensor(p + "output.LayerNorm.weight"), tensor(p + "output.LayerNorm.bias"));
    }

    /** One transformer layer's parameters (PyTorch layout, see the class comment). */
    public record Layer(float[] queryWeight, float[] queryBias, float[] keyWeight, float[] keyBias,
                        float[] valueWeight, float[] valueBias, float[] attentionOutputWeight,
                        float[] attentionOutputBias, float[] attentionNormWeight, float[] attentionNormBias,
                        float[] intermediateWeight, float[] intermediateBias, float[] outputWeight,
                        float[] outputBias, float[] outputNormWeight, float[] outputNormBias) {
    }
}
