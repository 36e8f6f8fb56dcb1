package io.sparkattention.io;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.kernel.Heads;

import java.util.HashMap;
import java.util.Map;

/**
 * Finds a BERT encoder's parameters and architecture in an ONNX graph exported from PyTorch's
 * {@code BertModel}.
 *
 * <p>Biases, LayerNorm parameters and embeddings keep their PyTorch names as initializers
 * ({@code encoder.layer.0.attention.self.query.bias}). The projection weights are anonymous
 * initializers ({@code onnx::MatMul_787}, in×out) that only their consuming node names:
 * {@code /encoder/layer.0/attention/self/query/MatMul} is module
 * {@code encoder.layer.0.attention.self.query}. A node without such a name is matched through the
 * bias its output is added to ({@code Add(query.bias, MatMul(x, W))}). A {@code Gemm} with
 * {@code transB = 1} holds its weight out×in already; a MatMul's is transposed.
 *
 * <p>The heads come from the shape the query is reshaped to ({@code [batch, L, H, E/H]}: a
 * Concat of constants, or one constant); LayerNorm's ε from a {@code LayerNormalization} node's
 * {@code epsilon}, or, in opsets without that operator, from the constant added to the variance
 * in the embeddings' decomposed LayerNorm ({@code /embeddings/LayerNorm/Add}); 1e-12 (BERT's
 * default) when neither is there.
 */
final class BertOnnxGraph {

    /** BERT's default LayerNorm ε, used when the graph does not show it. */
    static final float DEFAULT_EPS = 1e-12f;

    private final OnnxModel model;
    private final String source;

    BertOnnxGraph(OnnxModel model) {
        this.model = model;
        this.source = model.source();
    }

    /**
     * The encoder's weights.
     *
     * @param numHeadsOrZero the caller's heads, or 0 to take them from the graph
     * @throws TensorFormatException naming the tensor or node that is missing or mis-shaped
     * @throws IllegalArgumentException when the caller's heads contradict the graph's, or do not
     *                                  divide the hidden width
     */
    BertWeights weights(int numHeadsOrZero) throws TensorFormatException {
        if (numHeadsOrZero < 0) {
            throw new IllegalArgumentException("numHeads must be >= 0 (0: from the graph), got " + numHeadsOrZero);
        }
        Map<String, float[]> tensors = new HashMap<>();
        Map<String, long[]> shapes = new HashMap<>();
        for (Map.Entry<String, OnnxTensor> e : model.initializers().entrySet()) {
            String name = e.getKey();
            if (name.startsWith("embeddings.") || name.startsWith("encoder.layer.")) {
                if (name.equals("embeddings.position_ids")) {
                    continue;
                }
                tensors.put(name, e.getValue().floats());
                shapes.put(name, e.getValue().dims());
            }
        }
        for (OnnxNode node : model.nodes()) {
            if (node.opType().equals("MatMul") || node.opType().equals("Gemm")) {
                projection(node, tensors, shapes);
            }
        }
        long[] word = require(shapes, BertWeights.WORD_EMBEDDINGS, 2);
        long[] position = require(shapes, BertWeights.POSITION_EMBEDDINGS, 2);
        long[] type = require(shapes, BertWeights.TOKEN_TYPE_EMBEDDINGS, 2);
        int hidden = (int) word[1];
        int layers = 0;
        while (shapes.containsKey(BertWeights.layerPrefix(layers) + "attention.self.query.weight")) {
            layers++;
        }
        if (layers == 0) {
            throw new TensorFormatException(source, BertWeights.layerPrefix(0) + "attention.self.query.weight",
                "not found: no MatMul or Gemm node reads the first layer's query projection");
        }
        long[] intermediate = require(shapes, BertWeights.layerPrefix(0) + "intermediate.dense.weight", 2);
        int heads = heads(numHeadsOrZero, hidden);
        BertConfig config = new BertConfig(layers, hidden, heads, (int) intermediate[0], (int) position[0],
            (int) word[0], (int) type[0], eps());
        return BertModelFiles.checkedWeights(source, config, tensors, shapes);
    }

    /** Records a projection weight under its PyTorch name, out×in. */
    private void projection(OnnxNode node, Map<String, float[]> tensors, Map<String, long[]> shapes)
        throws TensorFormatException {
        if (node.inputs().size() < 2) {
            return;
        }
        OnnxTensor w = model.initializers().get(node.inputs().get(1));
        if (w == null || w.dims().length != 2) {
            return;
        }
        String module = moduleOf(node);
        if (module == null) {
            return;
        }
        long[] d = w.dims();
        boolean transposed = node.opType().equals("Gemm") && node.attribute("transB") != null
            && node.attribute("transB").i() == 1;
        float[] values = w.floats();
        long out = transposed ? d[0] : d[1];
        long in = transposed ? d[1] : d[0];
        tensors.put(module + ".weight", transposed ? values : transpose(values, (int) d[0], (int) d[1]));
        shapes.put(module + ".weight", new long[] {out, in});
        if (node.opType().equals("Gemm") && node.inputs().size() > 2) {
            OnnxTensor b = model.initializers().get(node.inputs().get(2));
            if (b != null && !shapes.containsKey(module + ".bias")) {
                tensors.put(module + ".bias", b.floats());
                shapes.put(module + ".bias", b.dims());
            }
        }
    }

    /**
     * The PyTorch module a projection node belongs to: from its name
     * ({@code /encoder/layer.0/attention/self/query/MatMul}), else from the bias initializer
     * ({@code ….bias}) that an Add node adds to its output; null when neither says.
     */
    private String moduleOf(OnnxNode node) {
        String name = node.name();
        String suffix = "/" + node.opType();
        if (name.startsWith("/") && name.endsWith(suffix)) {
            String module = name.substring(1, name.length() - suffix.length()).replace('/', '.');
            if (module.startsWith("embeddings.") || module.startsWith("encoder.layer.")) {
                return module;
            }
        }
        if (node.opType().equals("Gemm") && node.inputs().size() > 2) {
            String bias = node.inputs().get(2);
            if (bias.endsWith(".bias") && model.initializers().containsKey(bias)) {
                return bias.substring(0, bias.length() - ".bias".length());
            }
        }
        if (node.outputs().isEmpty()) {
            return null;
        }
        for (OnnxNode add : model.consumers(node.outputs().get(0))) {
            if (add.opType().equals("Add")) {
                for (String in : add.inputs()) {
                    if (in.endsWith(".bias") && model.initializers().containsKey(in)) {
                        return in.substring(0, in.length() - ".bias".length());
                    }
                }
            }
        }
        return null;
    }

    /** The heads: the graph's (checked against the caller's when both are given), else the caller's. */
    private int heads(int numHeadsOrZero, int hidden) throws TensorFormatException {
        Reshape r = queryReshape();
        if (r != null) {
            if (numHeadsOrZero != 0 && numHeadsOrZero != r.heads) {
                throw new IllegalArgumentException(source + ": " + numHeadsOrZero + " heads given, but the graph's "
                    + r.node + " splits the query into " + r.heads + " heads");
            }
            try {
                Heads.headDim(hidden, r.heads, "the heads it gives", "the hidden width");
            } catch (IllegalArgumentException e) {
                throw new TensorFormatException(source, r.tensor, e.getMessage());
            }
            return r.heads;
        }
        if (numHeadsOrZero == 0) {
            throw new TensorFormatException(source, null, "the graph does not show the number of attention heads "
                + "(no Reshape of the first query projection to [batch, L, heads, head size]); give it");
        }
        Heads.headDim(hidden, numHeadsOrZero, "numHeads", "the hidden width", " of " + source);
        return numHeadsOrZero;
    }

    private record Reshape(String node, String tensor, int heads) {
    }

    /** The first layer's query Reshape to [batch, L, H, d] and its H, or null when there is none. */
    private Reshape queryReshape() throws TensorFormatException {
        String bias = BertWeights.layerPrefix(0) + "attention.self.query.bias";
        for (OnnxNode add : model.consumers(bias)) {
            for (OnnxNode reshape : model.consumers(add.outputs().get(0))) {
                if (!reshape.opType().equals("Reshape") || reshape.inputs().size() < 2) {
                    continue;
                }
                String shape = reshape.inputs().get(1);
                OnnxTensor whole = model.constant(shape);
                if (whole != null && whole.elementCount() == 4) {
                    return new Reshape(reshape.name(), whole.name().isEmpty() ? shape : whole.name(),
                        (int) whole.longs()[2]);
                }
                OnnxNode concat = model.producer(shape);
                if (concat != null && concat.opType().equals("Concat") && concat.inputs().size() == 4) {
                    OnnxTensor h = model.constant(concat.inputs().get(2));
                    if (h != null && h.elementCount() == 1) {
                        return new Reshape(reshape.name(), concat.inputs().get(2), (int) h.longs()[0]);
                    }
                }
            }
        }
        return null;
    }

    /** LayerNorm's ε (see the class comment). */
    private float eps() throws TensorFormatException {
        for (OnnxNode n : model.nodes()) {
            if (n.opType().equals("LayerNormalization")) {
                OnnxNode.Attribute a = n.attribute("epsilon");
                return a == null ? 1e-5f : a.f();
            }
        }
        for (OnnxNode n : model.nodes()) {
            if (n.opType().equals("Add") && n.name().endsWith("embeddings/LayerNorm/Add")) {
                for (String in : n.inputs()) {
                    OnnxTensor c = model.constant(in);
                    if (c != null && c.elementCount() == 1) {
                        return c.floats()[0];
                    }
                }
            }
        }
        return DEFAULT_EPS;
    }

    private long[] require(Map<String, long[]> shapes, String name, int rank) throws TensorFormatException {
        long[] s = shapes.get(name);
        if (s == null) {
            throw new TensorFormatException(source, name, "not found among the graph's initializers");
        }
        if (s.length != rank) {
            throw new TensorFormatException(source, name, "has shape " + BertWeights.shapeText(s) + ", expected "
                + rank + " dimensions");
        }
        return s;
    }

    /** {@code [rows×cols]ᵀ}: cols×rows. */
    static float[] transpose(float[] a, int rows, int cols) {
        float[] t = new float[a.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                t[c * rows + r] = a[r * cols + c];
            }
        }
        return t;
    }
}
