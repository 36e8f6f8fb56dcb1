package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import ai.djl.nn.core.Embedding;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import io.sparkattention.examples.bench.TorchLm;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hugging Face's {@code GPT2LMHeadModel} forward (eager attention, no dropout) written with
 * libtorch's NDArray ops through DJL: token + position embeddings, then per pre-LN block ln_1, the
 * fused QKV projection, {@code softmax(QKᵀ/√D + mask)·V} over the heads with the keys and values
 * of earlier calls in front (the KV cache, grown by concatenation as Hugging Face's
 * {@code DynamicCache} grows it), the output projection and residual, ln_2, c_fc, {@code gelu_new}
 * written out in its tanh form as Hugging Face's {@code NewGELUActivation} computes it (or the erf
 * GELU), c_proj and residual; ln_f and the tied head {@code h·wteᵀ}.
 *
 * <p>Conv1D's {@code [in, out]} weights are kept transposed, {@code [out, in]}, so each projection
 * is one {@code linear} (libtorch's {@code addmm}, as Conv1D's), bias fused.
 */
final class DjlGpt implements AutoCloseable {

    private final NDManager manager;
    private final Map<String, NDArray> params = new LinkedHashMap<>();
    private final int layers, hidden, heads;
    private final float eps;
    private final boolean gelu;
    private final NDArray head;

    /**
     * @param weights the model's tensors
     * @param manager the manager that owns the parameters (closed by {@link #close()})
     */
    DjlGpt(TorchLm.Weights weights, NDManager manager) {
        this.manager = manager;
        this.heads = weights.heads();
        this.eps = weights.layerNormEps();
        this.gelu = "gelu".equals(weights.activation());
        int n = 0;
        while (weights.tensors().containsKey("h." + n + ".attn.c_attn.weight")) {
            n++;
        }
        this.layers = n;
        for (Map.Entry<String, float[]> e : weights.tensors().entrySet()) {
            NDArray p = manager.create(e.getValue(), new Shape(weights.shapes().get(e.getKey())));
            params.put(e.getKey(), conv1d(e.getKey(), p) ? p.transpose().duplicate() : p);
        }
        this.hidden = (int) params.get("ln_f.weight").getShape().get(0);
        if (layers == 0 || hidden % heads != 0) {
            throw new IllegalArgumentException("not a GPT-2 of " + heads + " heads: " + layers + " layers, n_embd " + hidden);
        }
        this.head = params.getOrDefault("lm_head.weight", params.get("wte.weight"));
    }

    /** Whether a tensor is a Conv1D weight (a block's 2-D weight), kept transposed here. */
    static boolean conv1d(String name, NDArray value) {
        return name.startsWith("h.") && name.endsWith(".weight") && value.getShape().dimension() == 2;
    }

    /** Every parameter by its Hugging Face name, in the given order; Conv1D weights transposed ({@link #conv1d}). */
    Map<String, NDArray> parameters() {
        return params;
    }

    /** The keys and values of earlier positions, per layer [B, H, S, D]; empty at a row's start. */
    static final class Cache {
        final NDArray[] keys, values;

        Cache(int layers) {
            this.keys = new NDArray[layers];
            this.values = new NDArray[layers];
        }

        /**
         * Takes the arrays of the last forward out of the current {@link ai.djl.ndarray.NDScope},
         * so they outlive it; {@link DjlGpt#hidden} frees each layer's previous ones as it grows them.
         */
        void keep() {
            for (int n = 0; n < keys.length; n++) {
                ai.djl.ndarray.NDScope.unregister(keys[n], values[n]);
            }
        }

        /** Frees the cached arrays. */
        void close() {
            for (int n = 0; n < keys.length; n++) {
                if (keys[n] != null) {
                    keys[n].close();
                    values[n].close();
                }
            }
        }

        /** Positions already cached. */
        long length() {
            return keys[0] == null ? 0 : keys[0].getShape().get(2);
        }
    }

    Cache newCache() {
        return new Cache(layers);
    }

    /**
     * The final hidden states (after ln_f) of T new positions per row, appending their keys and
     * values to {@code cache}.
     *
     * @param ids      [B, T] int64
     * @param maskBias [B or 1, 1, T, S + T] float32, 0 where a query sees a key and the most
     *                 negative float elsewhere; null when every query sees every key (one new position)
     * @return [B, T, E]
     */
    NDArray hidden(NDArray ids, NDArray maskBias, Cache cache) {
        long b = ids.getShape().get(0), t = ids.getShape().get(1), start = cache.length();
        long d = hidden / heads;
        NDArray positions = ids.getManager().arange(start, start + t, 1, DataType.INT64);
        NDArray x = Embedding.embedding(ids, p("wte.weight"), SparseFormat.DENSE).get(0)
            .add(Embedding.embedding(positions, p("wpe.weight"), SparseFormat.DENSE).get(0));
        double scale = 1 / Math.sqrt(d);
        for (int n = 0; n < layers; n++) {
            String layer = "h." + n + ".";
            // [B, T, 3E] -> three [B, H, T, D]
            NDArray qkv = linear(norm(x, layer + "ln_1"), layer + "attn.c_attn").reshape(b, t, 3, heads, d)
                .transpose(2, 0, 3, 1, 4);
            NDArray q = qkv.get(0), k = qkv.get(1), v = qkv.get(2);
            if (cache.keys[n] != null) {
                NDArray oldKeys = cache.keys[n], oldValues = cache.values[n];
                k = oldKeys.concat(k, 2);
                v = oldValues.concat(v, 2);
                // kept out of every scope by Cache.keep: freed here, once grown
                oldKeys.close();
                oldValues.close();
            }
            cache.keys[n] = k;
            cache.values[n] = v;
            // [B, H, T, S + T]
            NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).mul(scale);
            NDArray probs = (maskBias == null ? scores : scores.add(maskBias)).softmax(-1);
            NDArray context = probs.matMul(v).transpose(0, 2, 1, 3).reshape(b, t, hidden);
            x = x.add(linear(context, layer + "attn.c_proj"));
            NDArray inner = linear(norm(x, layer + "ln_2"), layer + "mlp.c_fc");
            x = x.add(linear(gelu ? Activation.gelu(inner) : geluNew(inner), layer + "mlp.c_proj"));
        }
        return norm(x, "ln_f");
    }

    /** The head's logits of hidden states [..., E]: [..., V]. */
    NDArray logits(NDArray states) {
        return states.matMul(head.transpose());
    }

    /** gelu_new(u) = 0.5·u·(1 + tanh(√(2/π)·(u + 0.044715·u³))), op by op as Hugging Face's NewGELUActivation. */
    private static NDArray geluNew(NDArray u) {
        return u.mul(0.5).mul(u.pow(3).mul(0.044715).add(u).mul(Math.sqrt(2 / Math.PI)).tanh().add(1));
    }

    /**
     * The causal mask bias of T new queries over S cached and T new keys, each row's keys past its
     * own length masked too: [B, 1, T, S + T].
     *
     * @param lengths each row's real length among the S + T keys (S + T when unpadded)
     */
    static NDArray causalBias(NDManager into, int[] lengths, int cached, int t) {
        int keys = cached + t;
        float[] bias = new float[lengths.length * t * keys];
        for (int r = 0; r < lengths.length; r++) {
            for (int i = 0; i < t; i++) {
                for (int j = 0; j < keys; j++) {
                    if (j > cached + i || j >= lengths[r]) {
                        bias[(r * t + i) * keys + j] = -Float.MAX_VALUE;
                    }
                }
            }
        }
        return into.create(bias, new Shape(lengths.length, 1, t, keys));
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

    @Override
    public void close() {
        manager.close();
    }
}
