package io.sparkattention.io;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.kernel.Heads;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A BERT-family encoder ({@link BertEncoder}) from an ONNX file or a Hugging Face
 * {@code model.safetensors}, and back to safetensors.
 *
 * <p><b>ONNX</b> (a PyTorch export, e.g. sentence-transformers' all-MiniLM-L6-v2): weights from
 * the graph's initializers, the projections found through the nodes that read them
 * ({@link BertOnnxGraph}); the architecture from the tensors' shapes and the graph.
 *
 * <p><b>safetensors</b> of a {@code BertModel} under Hugging Face's names ({@link BertWeights}),
 * optionally behind a prefix ({@code bert.} in a {@code BertForSequenceClassification},
 * {@code 0.auto_model.} in a sentence-transformers module list). The shapes give the
 * architecture; the heads, which no tensor shows, come from the caller; ε from the file's
 * {@code __metadata__} ({@value #META_EPS}, as this class writes it) or BERT's default 1e-12.
 * The pooler and any other module's tensors are ignored.
 */
public final class BertModelFiles {

    /** {@code __metadata__} key of the LayerNorm ε, written by {@link #writeSafeTensors}. */
    public static final String META_EPS = "layer_norm_eps";
    /** {@code __metadata__} key of the heads, written by {@link #writeSafeTensors}. */
    public static final String META_HEADS = "num_attention_heads";

    private BertModelFiles() {
    }

    /**
     * An encoder from an ONNX file.
     *
     * @param numHeadsOrZero the heads, or 0 to take them from the graph
     * @throws TensorFormatException    naming the file (and tensor) when it is not an ONNX BERT
     * @throws IllegalArgumentException when the heads given contradict the graph's or do not
     *                                  divide the hidden width
     * @throws IOException              when the file cannot be read
     */
    public static BertEncoder fromOnnx(Path file, int numHeadsOrZero) throws IOException {
        return fromOnnx(OnnxModel.read(file), numHeadsOrZero);
    }

    /** {@link #fromOnnx(Path, int)} from a stream (read to its end, not closed), named "ONNX stream" in errors. */
    public static BertEncoder fromOnnx(InputStream in, int numHeadsOrZero) throws IOException {
        return fromOnnx(in, "ONNX stream", numHeadsOrZero);
    }

    /** {@link #fromOnnx(Path, int)} from a stream (read to its end, not closed), named {@code sourceName} in errors. */
    public static BertEncoder fromOnnx(InputStream in, String sourceName, int numHeadsOrZero) throws IOException {
        return fromOnnx(OnnxModel.read(in, sourceName), numHeadsOrZero);
    }

    /** {@link #fromOnnx(Path, int)} from a decoded model. */
    public static BertEncoder fromOnnx(OnnxModel model, int numHeadsOrZero) throws TensorFormatException {
        Objects.requireNonNull(model, "model");
        return new BertEncoder(new BertOnnxGraph(model).weights(numHeadsOrZero));
    }

    /**
     * An encoder from a Hugging Face {@code BertModel} safetensors file.
     *
     * @param prefix   the model's name prefix ({@code bert.}, {@code 0.auto_model.}), "" or null for none
     * @param numHeads the heads, which no tensor shows
     * @throws TensorFormatException    naming the file and the tensor that is missing or mis-shaped
     * @throws IllegalArgumentException when numHeads is below 1 or does not divide the hidden width
     * @throws IOException              when the file cannot be read
     */
    public static BertEncoder fromSafeTensors(Path file, String prefix, int numHeads) throws IOException {
        checkHeads(numHeads);
        return fromSafeTensors(SafeTensors.read(file), prefix, numHeads);
    }

    /** {@link #fromSafeTensors(Path, String, int)} from an opened file (e.g. one on a Hadoop file system). */
    public static BertEncoder fromSafeTensors(SafeTensors file, String prefix, int numHeads) throws IOException {
        Objects.requireNonNull(file, "file");
        checkHeads(numHeads);
        String p = MultiHeadAttentionStateDict.normalizePrefix(prefix);
        String source = file.source();
        long[] word = shape(file, p, BertWeights.WORD_EMBEDDINGS, 2);
        long[] position = shape(file, p, BertWeights.POSITION_EMBEDDINGS, 2);
        long[] type = shape(file, p, BertWeights.TOKEN_TYPE_EMBEDDINGS, 2);
        int layers = 0;
        while (file.has(p + BertWeights.layerPrefix(layers) + "attention.self.query.weight")) {
            layers++;
        }
        if (layers == 0) {
            throw new TensorFormatException(source, p + BertWeights.layerPrefix(0) + "attention.self.query.weight",
                "not found: the file holds no encoder layer under the prefix \"" + p + "\"");
        }
        long[] intermediate = shape(file, p, BertWeights.layerPrefix(0) + "intermediate.dense.weight", 2);
        int hidden = (int) word[1];
        Heads.headDim(hidden, numHeads, "numHeads", "the hidden width",
            " of " + source + " (tensor " + p + BertWeights.WORD_EMBEDDINGS + ")");
        Map<String, String> meta = file.metadata();
        if (meta.containsKey(META_HEADS) && !meta.get(META_HEADS).equals(Integer.toString(numHeads))) {
            throw new IllegalArgumentException(numHeads + " heads given, but " + source + " says "
                + META_HEADS + " = " + meta.get(META_HEADS));
        }
        float eps = BertOnnxGraph.DEFAULT_EPS;
        if (meta.containsKey(META_EPS)) {
            try {
                eps = Float.parseFloat(meta.get(META_EPS));
            } catch (NumberFormatException e) {
                throw new TensorFormatException(source, null, "__metadata__ " + META_EPS + " is not a number: "
                    + meta.get(META_EPS));
            }
        }
        BertConfig config = new BertConfig(layers, hidden, numHeads, (int) intermediate[0], (int) position[0],
            (int) word[0], (int) type[0], eps);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (String name : BertWeights.shapes(config).keySet()) {
            if (!file.has(p + name)) {
                throw new TensorFormatException(source, p + name, "not found");
            }
            shapes.put(name, file.shape(p + name));
        }
        for (String name : BertWeights.shapes(config).keySet()) {
            checkShape(source, p + name, shapes.get(name), BertWeights.shapes(config).get(name));
            tensors.put(name, file.floats(p + name));
        }
        return new BertEncoder(checkedWeights(source, config, tensors, shapes));
    }

    /**
     * The encoder's tensors under Hugging Face's names, F32, as {@link #writeSafeTensors} writes them.
     */
    public static Map<String, Tensor> toTensors(BertEncoder encoder) {
        BertWeights w = Objects.requireNonNull(encoder, "encoder").weights();
        Map<String, long[]> shapes = BertWeights.shapes(w.config());
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (Map.Entry<String, float[]> e : w.tensors().entrySet()) {
            out.put(e.getKey(), Tensor.f32(e.getValue(), shapes.get(e.getKey())));
        }
        return out;
    }

    /** The {@code __metadata__} that {@link #writeSafeTensors} writes: heads and ε, which no tensor shows. */
    public static Map<String, String> metadata(BertConfig config) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(META_HEADS, Integer.toString(config.heads()));
        meta.put(META_EPS, Float.toString(config.layerNormEps()));
        return meta;
    }

    /**
     * Writes the encoder as a Hugging Face {@code BertModel} safetensors file (no prefix) to a
     * stream, which is not closed; {@link #fromSafeTensors} reads it back bit for bit.
     */
    public static void writeSafeTensors(BertEncoder encoder, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        SafeTensorsWriter.write(out, toTensors(encoder), metadata(encoder.config()));
    }

    /** {@link #writeSafeTensors(BertEncoder, OutputStream)} to a local file, atomically. */
    public static void writeSafeTensors(BertEncoder encoder, Path file) throws IOException {
        SafeTensorsWriter.write(file, toTensors(encoder), metadata(encoder.config()));
    }

    /** Checks every tensor's shape against the config's, naming the first that differs, then builds the weights. */
    static BertWeights checkedWeights(String source, BertConfig config, Map<String, float[]> tensors,
                                      Map<String, long[]> shapes) throws TensorFormatException {
        Map<String, float[]> kept = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(config).entrySet()) {
            String name = e.getKey();
            if (!tensors.containsKey(name)) {
                throw new TensorFormatException(source, name, "not found");
            }
            checkShape(source, name, shapes.get(name), e.getValue());
            kept.put(name, tensors.get(name));
        }
        return new BertWeights(config, kept);
    }

    private static void checkShape(String source, String name, long[] actual, long[] expected)
        throws TensorFormatException {
        if (!Arrays.equals(actual, expected)) {
            throw new TensorFormatException(source, name, "has shape " + BertWeights.shapeText(actual)
                + ", expected " + BertWeights.shapeText(expected));
        }
    }

    private static long[] shape(SafeTensors file, String prefix, String name, int rank) throws TensorFormatException {
        if (!file.has(prefix + name)) {
            throw new TensorFormatException(file.source(), prefix + name, "not found"
                + (prefix.isEmpty() ? "" : " (prefix \"" + prefix + "\")"));
        }
        long[] s = file.shape(prefix + name);
        if (s.length != rank) {
            throw new TensorFormatException(file.source(), prefix + name, "has shape " + BertWeights.shapeText(s)
                + ", expected " + rank + " dimensions");
        }
        return s;
    }

    private static void checkHeads(int numHeads) {
        if (numHeads < 1) {
            throw new IllegalArgumentException("numHeads must be >= 1, got " + numHeads);
        }
    }
}
