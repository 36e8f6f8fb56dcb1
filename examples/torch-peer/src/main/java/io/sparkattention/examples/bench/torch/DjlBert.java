package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Embedding;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.Dropout;
import ai.djl.nn.norm.LayerNorm;
import io.sparkattention.examples.bench.TorchRuntime.BertTensors;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hugging Face's {@code BertModel} forward (eager attention) written with libtorch's NDArray ops
 * through DJL: embeddings (word + position + token type 0, LayerNorm), then per post-LN layer
 * Q, K and V projections, {@code softmax(QKᵀ/√D + mask)·V} over the heads, the output projection,
 * residual + LayerNorm, the exact-erf GELU feed-forward, residual + LayerNorm. Padded batches:
 * padded keys get the most negative float added to their scores, as Hugging Face's extended
 * attention mask does. Dropout where Hugging Face puts it, when training.
 *
 * <p>The parameters live in libtorch's memory under their {@code BertModel} names; their data
 * type is the given one (float32 for the benchmarks, float64 for the gradient checks).
 */
final class DjlBert implements AutoCloseable {

    private final NDManager manager;
    private final Map<String, NDArray> params = new LinkedHashMap<>();
    private final int layers, hidden, heads;
    private final float eps;

    /**
     * @param weights  the encoder's tensors
     * @param dataType the parameters' type in libtorch
     * @param manager  the manager that owns the parameters (closed by {@link #close()})
     */
    DjlBert(BertTensors weights, DataType dataType, NDManager manager) {
        this.manager = manager;
        this.heads = weights.heads();
        this.eps = weights.layerNormEps();
        int n = 0;
        while (weights.tensors().containsKey("encoder.layer." + n + ".output.dense.weight")) {
            n++;
        }
        this.layers = n;
        for (Map.Entry<String, float[]> e : weights.tensors().entrySet()) {
            params.put(e.getKey(), manager.create(e.getValue(), new Shape(weights.shapes().get(e.getKey())))
                .toType(dataType, false));
        }
        this.hidden = (int) params.get("embeddings.LayerNorm.weight").getShape().get(0);
        if (layers == 0 || hidden % heads != 0) {
            throw new IllegalArgumentException("not a BERT encoder of " + heads + " heads: " + layers + " layers, hidden "
                + hidden);
        }
    }

    /** Every parameter by name, in the given tensors' order. */
    Map<String, NDArray> parameters() {
        return params;
    }

    int hidden() {
        return hidden;
    }

    /**
     * The last hidden states of a padded batch.
     *
     * @param ids      [B, T] int64 token ids, padded
     * @param maskBias [B, 1, 1, T] of the parameters' type: 0 for a real key, the type's most
     *                 negative value for padding
     * @param dropout  dropout probability, applied only when {@code training}
     * @return [B, T, E]
     */
    NDArray forward(NDArray ids, NDArray maskBias, double dropout, boolean training) {
        long b = ids.getShape().get(0), t = ids.getShape().get(1);
        long d = hidden / heads;
        NDArray positions = ids.getManager().arange(0, (int) t, 1, DataType.INT64);
        NDArray x = Embedding.embedding(ids, p("embeddings.word_embeddings.weight"), SparseFormat.DENSE).get(0)
            .add(Embedding.embedding(positions, p("embeddings.position_embeddings.weight"), SparseFormat.DENSE).get(0))
            .add(p("embeddings.token_type_embeddings.weight").get(0));
        x = drop(norm(x, "embeddings.LayerNorm"), dropout, training);
        double scale = 1 / Math.sqrt(d);
        for (int n = 0; n < layers; n++) {
            String layer = "encoder.layer." + n + ".";
            // [B, T, E] -> [B, H, T, D]
            NDArray q = heads(linear(x, layer + "attention.self.query"), b, t, d);
            NDArray k = heads(linear(x, layer + "attention.self.key"), b, t, d);
            NDArray v = heads(linear(x, layer + "attention.self.value"), b, t, d);
            // [B, H, T, T]
            NDArray probs = q.matMul(k.transpose(0, 1, 3, 2)).mul(scale).add(maskBias).softmax(-1);
            NDArray context = drop(probs, dropout, training).matMul(v).transpose(0, 2, 1, 3).reshape(b, t, hidden);
            NDArray attended = drop(linear(context, layer + "attention.output.dense"), dropout, training);
            x = norm(attended.add(x), layer + "attention.output.LayerNorm");
            NDArray inner = Activation.gelu(linear(x, layer + "intermediate.dense"));
            NDArray out = drop(linear(inner, layer + "output.dense"), dropout, training);
            x = norm(out.add(x), layer + "output.LayerNorm");
        }
        return x;
    }

    /** The ids [B, T] and mask bias [B, 1, 1, T] of ragged texts padded to the longest, in {@code into}. */
    static NDArray[] padded(NDManager into, int[][] texts, DataType dataType) {
        int longest = 0;
        for (int[] text : texts) {
            longest = Math.max(longest, text.length);
        }
        long[] ids = new long[texts.length * longest];
        float[] bias = new float[texts.length * longest];
        for (int r = 0; r < texts.length; r++) {
            for (int j = 0; j < longest; j++) {
                if (j < texts[r].length) {
                    ids[r * longest + j] = texts[r][j];
                } else {
                    bias[r * longest + j] = -Float.MAX_VALUE;
                }
            }
        }
        NDArray maskBias = into.create(bias, new Shape(texts.length, 1, 1, longest));
        if (dataType == DataType.FLOAT64) {
            // the float64 type's own most negative value, as Hugging Face takes finfo(dtype).min
            maskBias = maskBias.toType(DataType.FLOAT64, false).div(Float.MAX_VALUE).mul(Double.MAX_VALUE);
        }
        return new NDArray[] {into.create(ids, new Shape(texts.length, longest)), maskBias};
    }

    private NDArray p(String name) {
        return params.get(name);
    }

    private NDArray linear(NDArray x, String module) {
        return Linear.linear(x, p(module + ".weight"), p(module + ".bias")).get(0);
    }

    private NDArray norm(NDArray x, String module) {
        return LayerNorm.layerNorm(x, new Shape(hidden), p(module + ".weight"), p(module + ".bias"), eps).get(0);
    }

    private NDArray heads(NDArray projected, long b, long t, long d) {
        return projected.reshape(b, t, heads, d).transpose(0, 2, 1, 3);
    }

    static NDArray drop(NDArray x, double p, boolean training) {
        return training && p > 0 ? Dropout.dropout(x, (float) p, true).get(0) : x;
    }

    @Override
    public void close() {
        manager.close();
    }
}
