package io.sparkattention.bert;

import io.sparkattention.nn.Pooling;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fine-tuning model ({@code make_finetune_fixtures.py}'s {@code forward} and loss) in float64,
 * written from the definition, over parameters held as doubles by Hugging Face name, with
 * dropout at {@link BertClassifierNetwork}'s sites from the same {@link DropoutMask} keys: the
 * reference whose finite differences the blocks' gradients are checked against.
 */
final class Float64BertClassifier {

    final BertConfig c;
    final Map<String, double[]> p = new LinkedHashMap<>();
    final Pooling pooling;

    /** Every tensor of {@code stateDict} (encoder and head) widened to double. */
    Float64BertClassifier(BertConfig c, Map<String, float[]> stateDict, Pooling pooling) {
        this.c = c;
        this.pooling = pooling;
        for (Map.Entry<String, float[]> e : stateDict.entrySet()) {
            double[] d = new double[e.getValue().length];
            for (int i = 0; i < d.length; i++) {
                d[i] = e.getValue()[i];
            }
            p.put(e.getKey(), d);
        }
    }

    /**
     * {@code weight·CE(logits, label)} of one row.
     *
     * @param dropout p, or 0 for none
     * @param first   the lowest layer with dropout (the trainable part); the embeddings get
     *                dropout when first &lt; 0
     */
    double loss(int[] ids, int label, double weight, double dropout, int first, long seed, long step, long rowKey) {
        double[] z = logits(ids, dropout, first, seed, step, rowKey);
        double max = Double.NEGATIVE_INFINITY;
        for (double v : z) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (double v : z) {
            sum += Math.exp(v - max);
        }
        return weight * (max + Math.log(sum) - z[label]);
    }

    private DropoutMask mask(double dropout, boolean on, int site, long seed, long step, long rowKey) {
        return dropout > 0 && on ? DropoutMask.of(seed, step, rowKey, site, dropout) : null;
    }

    private static void drop(double[] x, DropoutMask m) {
        if (m != null) {
            for (int i = 0; i < x.length; i++) {
                x[i] *= m.factor(i);
            }
        }
    }

    double[] logits(int[] ids, double dropout, int first, long seed, long step, long rowKey) {
        int L = ids.length, E = c.hidden();
        double[] x = states(ids, dropout, first, seed, step, rowKey);
        double[] pooled = new double[E];
        for (int j = 0; j < E; j++) {
            if (pooling == Pooling.MEAN) {
                for (int i = 0; i < L; i++) {
                    pooled[j] += x[i * E + j] / L;
                }
            } else {
                pooled[j] = x[j];
            }
        }
        drop(pooled, mask(dropout, true, DropoutMask.POOLED, seed, step, rowKey));
        double[] w = p.get(BertClassifierNetwork.CLASSIFIER_WEIGHT), b = p.get(BertClassifierNetwork.CLASSIFIER_BIAS);
        double[] z = new double[b.length];
        for (int k = 0; k < b.length; k++) {
            z[k] = b[k];
            for (int j = 0; j < E; j++) {
                z[k] += w[k * E + j] * pooled[j];
            }
        }
        return z;
    }

    /** The last hidden state, L×E (the encoder's tensors only are read). */
    double[] states(int[] ids, double dropout, int first, long seed, long step, long rowKey) {
        int L = ids.length, E = c.hidden(), F = c.intermediate(), H = c.heads(), d = c.headDim();
        double eps = c.layerNormEps();
        double[] x = new double[L * E];
        double[] word = p.get(BertWeights.WORD_EMBEDDINGS), pos = p.get(BertWeights.POSITION_EMBEDDINGS);
        double[] type = p.get(BertWeights.TOKEN_TYPE_EMBEDDINGS);
        for (int i = 0; i < L; i++) {
            for (int j = 0; j < E; j++) {
                x[i * E + j] = word[ids[i] * E + j] + pos[i * E + j] + type[j];
            }
        }
        norm(x, L, E, p.get(BertWeights.EMBEDDINGS_NORM_WEIGHT), p.get(BertWeights.EMBEDDINGS_NORM_BIAS), eps);
        drop(x, mask(dropout, first < 0, DropoutMask.EMBEDDINGS, seed, step, rowKey));
        for (int n = 0; n < c.layers(); n++) {
            boolean on = n >= first;
            String pre = BertWeights.layerPrefix(n);
            double[] q = linear(x, L, E, pre + "attention.self.query", E);
            double[] k = linear(x, L, E, pre + "attention.self.key", E);
            double[] v = linear(x, L, E, pre + "attention.self.value", E);
            DropoutMask probsMask = mask(dropout, on, DropoutMask.site(n, DropoutMask.ATTENTION_PROBS), seed, step,
                rowKey);
            double[] ctx = new double[L * E];
            double[] s = new double[L];
            for (int h = 0; h < H; h++) {
                for (int i = 0; i < L; i++) {
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j < L; j++) {
                        double dot = 0;
                        for (int t = 0; t < d; t++) {
                            dot += q[i * E + h * d + t] * k[j * E + h * d + t];
                        }
                        s[j] = dot / Math.sqrt(d);
                        max = Math.max(max, s[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j < L; j++) {
                        s[j] = Math.exp(s[j] - max);
                        sum += s[j];
                    }
                    for (int j = 0; j < L; j++) {
                        s[j] /= sum;
                        if (probsMask != null) {
                            s[j] *= probsMask.factor(((long) h * L + i) * L + j);
                        }
                    }
                    for (int t = 0; t < d; t++) {
                        double acc = 0;
                        for (int j = 0; j < L; j++) {
                            acc += s[j] * v[j * E + h * d + t];
                        }
                        ctx[i * E + h * d + t] = acc;
                    }
                }
            }
            double[] a = linear(ctx, L, E, pre + "attention.output.dense", E);
            drop(a, mask(dropout, on, DropoutMask.site(n, DropoutMask.ATTENTION_OUTPUT), seed, step, rowKey));
            add(x, a);
            norm(x, L, E, p.get(pre + "attention.output.LayerNorm.weight"), p.get(pre + "attention.output.LayerNorm.bias"),
                eps);
            double[] hdn = linear(x, L, E, pre + "intermediate.dense", F);
            for (int i = 0; i < hdn.length; i++) {
                hdn[i] = 0.5 * hdn[i] * (1 + GeluTest.exactErf(hdn[i] / Math.sqrt(2)));
            }
            double[] o = linear(hdn, L, F, pre + "output.dense", E);
            drop(o, mask(dropout, on, DropoutMask.site(n, DropoutMask.FEED_FORWARD_OUTPUT), seed, step, rowKey));
            add(x, o);
            norm(x, L, E, p.get(pre + "output.LayerNorm.weight"), p.get(pre + "output.LayerNorm.bias"), eps);
        }
        return x;
    }

    private double[] linear(double[] x, int L, int in, String module, int out) {
        double[] weight = p.get(module + ".weight"), bias = p.get(module + ".bias");
        double[] y = new double[L * out];
        for (int i = 0; i < L; i++) {
            for (int o = 0; o < out; o++) {
                double acc = bias[o];
                for (int t = 0; t < in; t++) {
                    acc += x[i * in + t] * weight[o * in + t];
                }
                y[i * out + o] = acc;
            }
        }
        return y;
    }

    private static void add(double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) {
            x[i] += y[i];
        }
    }

    private static void norm(double[] x, int L, int E, double[] g, double[] b, double eps) {
        for (int i = 0; i < L; i++) {
            double mean = 0, var = 0;
            for (int j = 0; j < E; j++) {
                mean += x[i * E + j];
            }
            mean /= E;
            for (int j = 0; j < E; j++) {
                var += (x[i * E + j] - mean) * (x[i * E + j] - mean);
            }
            var /= E;
            for (int j = 0; j < E; j++) {
                x[i * E + j] = (x[i * E + j] - mean) / Math.sqrt(var + eps) * g[j] + b[j];
            }
        }
    }
}
