package io.sparkattention.gpt;

import io.sparkattention.bert.DropoutMask;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.LinkedHashMap;

/**
 * A float64 GPT-2 forward from {@link GptWeights}, written from make_gpt_fixtures.py's docstring
 * (every product, LayerNorm, softmax and activation in double, the causal mask by loop bounds), and
 * seeded random weights for configs the fixtures do not cover.
 */
final class Float64Gpt {

    private Float64Gpt() {
    }

    /** L×V logits of one row (positions 0 … L − 1). */
    static double[] logits(GptWeights w, int[] ids) {
        return logits(w.config(), doubles(w), ids, null);
    }

    /** The weights widened to double, by name: what {@link #loss} perturbs for finite differences. */
    static Map<String, double[]> doubles(GptWeights w) {
        Map<String, double[]> p = new LinkedHashMap<>();
        for (Map.Entry<String, float[]> e : w.stateDict().entrySet()) {
            float[] v = e.getValue();
            double[] d = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = v[i];
            }
            p.put(e.getKey(), d);
        }
        return p;
    }

    /**
     * Σ weight·(−log-likelihood of the block's L − 1 predicted tokens) over the blocks, with GPT-2's
     * dropout p > 0 at the training sites (the masks of {@link DropoutMask}, keyed by seed, step and
     * the block's key), none when p is 0.
     */
    static double loss(GptConfig c, Map<String, double[]> p, List<TokenBlock> blocks, double dropout, long seed,
                       long step) {
        int V = c.vocabSize();
        double total = 0;
        for (TokenBlock b : blocks) {
            int[] ids = b.ids();
            double[] z = logits(c, p, ids, dropout > 0 ? new Masks(c, dropout, seed, step, b.key()) : null);
            double nll = 0;
            for (int t = 1; t < ids.length; t++) {
                nll += logSumExp(z, (t - 1) * V, V) - z[(t - 1) * V + ids[t]];
            }
            total += b.weight() * nll;
        }
        return total;
    }

    /** One block's dropout masks: the embeddings' and, per layer, probabilities / attention output / MLP output. */
    static final class Masks {
        final DropoutMask embeddings;
        final DropoutMask[][] layers;

        Masks(GptConfig c, double p, long seed, long step, long key) {
            embeddings = DropoutMask.of(seed, step, key, DropoutMask.EMBEDDINGS, p);
            layers = new DropoutMask[c.layers()][3];
            for (int n = 0; n < c.layers(); n++) {
                for (int kind = 0; kind < 3; kind++) {
                    layers[n][kind] = DropoutMask.of(seed, step, key, DropoutMask.site(n, kind), p);
                }
            }
        }
    }

    /** L×V logits of one row from double weights, with a block's masks (null: none). */
    static double[] logits(GptConfig c, Map<String, double[]> w, int[] ids, Masks masks) {
        int L = ids.length, E = c.hidden(), H = c.heads(), D = E / H, F = c.inner(), V = c.vocabSize();
        double[] x = new double[L * E];
        double[] wte = w.get("wte.weight"), wpe = w.get("wpe.weight");
        for (int i = 0; i < L; i++) {
            for (int j = 0; j < E; j++) {
                x[i * E + j] = wte[ids[i] * E + j] + wpe[i * E + j];
            }
        }
        drop(x, masks == null ? null : masks.embeddings);
        for (int n = 0; n < c.layers(); n++) {
            String q = GptWeights.layerPrefix(n);
            DropoutMask[] m = masks == null ? new DropoutMask[3] : masks.layers[n];
            double[] a = layerNorm(x, L, E, w.get(q + "ln_1.weight"), w.get(q + "ln_1.bias"), c.layerNormEps());
            double[] qkv = conv1d(a, L, E, 3 * E, w.get(q + "attn.c_attn.weight"), w.get(q + "attn.c_attn.bias"));
            double[] att = new double[L * E];
            double scale = 1.0 / Math.sqrt(D);
            for (int h = 0; h < H; h++) {
                for (int i = 0; i < L; i++) {
                    double[] s = new double[i + 1];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j <= i; j++) {
                        double dot = 0;
                        for (int d = 0; d < D; d++) {
                            dot += qkv[i * 3 * E + h * D + d] * qkv[j * 3 * E + E + h * D + d];
                        }
                        s[j] = dot * scale;
                        max = Math.max(max, s[j]);
                    }
                    double sum = 0;
                    for (int j = 0; j <= i; j++) {
                        s[j] = Math.exp(s[j] - max);
                        sum += s[j];
                    }
                    for (int j = 0; j <= i; j++) {
                        double keep = m[0] == null ? 1 : m[0].factor(((long) h * L + i) * L + j);
                        for (int d = 0; d < D; d++) {
                            att[i * E + h * D + d] += s[j] / sum * keep * qkv[j * 3 * E + 2 * E + h * D + d];
                        }
                    }
                }
            }
            double[] y = conv1d(att, L, E, E, w.get(q + "attn.c_proj.weight"), w.get(q + "attn.c_proj.bias"));
            drop(y, m[1]);
            add(x, y);
            double[] mm = layerNorm(x, L, E, w.get(q + "ln_2.weight"), w.get(q + "ln_2.bias"), c.layerNormEps());
            double[] u = conv1d(mm, L, E, F, w.get(q + "mlp.c_fc.weight"), w.get(q + "mlp.c_fc.bias"));
            for (int i = 0; i < u.length; i++) {
                u[i] = activation(c.activation(), u[i]);
            }
            y = conv1d(u, L, F, E, w.get(q + "mlp.c_proj.weight"), w.get(q + "mlp.c_proj.bias"));
            drop(y, m[2]);
            add(x, y);
        }
        double[] h = layerNorm(x, L, E, w.get("ln_f.weight"), w.get("ln_f.bias"), c.layerNormEps());
        double[] head = w.get(c.tiedHead() ? "wte.weight" : "lm_head.weight");
        double[] out = new double[L * V];
        for (int i = 0; i < L; i++) {
            for (int v = 0; v < V; v++) {
                double dot = 0;
                for (int j = 0; j < E; j++) {
                    dot += h[i * E + j] * head[v * E + j];
                }
                out[i * V + v] = dot;
            }
        }
        return out;
    }

    private static void drop(double[] x, DropoutMask mask) {
        if (mask != null) {
            for (int i = 0; i < x.length; i++) {
                x[i] *= mask.factor(i);
            }
        }
    }

    /** log_softmax(logits[t − 1])[ids[t]] for t = 1 … L − 1 of a row alone (L ≤ positions). */
    static double[] tokenLogProbs(GptWeights w, int[] ids) {
        int V = w.config().vocabSize();
        double[] logits = logits(w, ids);
        double[] out = new double[Math.max(0, ids.length - 1)];
        for (int t = 1; t < ids.length; t++) {
            out[t - 1] = logits[(t - 1) * V + ids[t]] - logSumExp(logits, (t - 1) * V, V);
        }
        return out;
    }

    /**
     * Hugging Face's perplexity recipe, as its documentation writes it: windows of P tokens from
     * begin = 0, stride, …; each window's labels before {@code end − trg_len} masked (−100),
     * trg_len = end − prev_end; the loop stops once a window reaches the end.
     */
    static double[] slidingWindow(GptWeights w, int[] ids, int stride) {
        int P = w.config().positions(), L = ids.length;
        double[] out = new double[L - 1];
        int prevEnd = 0;
        for (int begin = 0; begin < L; begin += stride) {
            int end = Math.min(begin + P, L);
            int trgLen = end - prevEnd;
            int[] window = java.util.Arrays.copyOfRange(ids, begin, end);
            double[] lp = tokenLogProbs(w, window);
            for (int t = Math.max(1, end - trgLen - begin); t < window.length; t++) {
                out[begin + t - 1] = lp[t - 1];
            }
            prevEnd = end;
            if (end == L) {
                break;
            }
        }
        return out;
    }

    static double logSumExp(double[] x, int off, int n) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < n; j++) {
            max = Math.max(max, x[off + j]);
        }
        double sum = 0;
        for (int j = 0; j < n; j++) {
            sum += Math.exp(x[off + j] - max);
        }
        return max + Math.log(sum);
    }

    static double activation(String name, double u) {
        if (name.equals(GptConfig.GELU)) {
            return 0.5 * u * (1 + io.sparkattention.bert.Gelu.erf(u / Math.sqrt(2)));
        }
        return 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u * u * u)));
    }

    private static double[] conv1d(double[] x, int L, int in, int out, double[] w, double[] b) {
        double[] y = new double[L * out];
        for (int i = 0; i < L; i++) {
            for (int o = 0; o < out; o++) {
                double s = b[o];
                for (int k = 0; k < in; k++) {
                    s += x[i * in + k] * w[k * out + o];
                }
                y[i * out + o] = s;
            }
        }
        return y;
    }

    private static double[] layerNorm(double[] x, int L, int E, double[] g, double[] b, double eps) {
        double[] y = new double[L * E];
        for (int i = 0; i < L; i++) {
            double mean = 0, var = 0;
            for (int j = 0; j < E; j++) {
                mean += x[i * E + j];
            }
            mean /= E;
            for (int j = 0; j < E; j++) {
                var += (x[i * E + j] - mean) * (x[i * E + j] - mean);
            }
            double inv = 1 / Math.sqrt(var / E + eps);
            for (int j = 0; j < E; j++) {
                y[i * E + j] = (x[i * E + j] - mean) * inv * g[j] + b[j];
            }
        }
        return y;
    }

    private static void add(double[] x, double[] y) {
        for (int i = 0; i < x.length; i++) {
            x[i] += y[i];
        }
    }

    /** Seeded random weights at make_gpt_fixtures.py's scales (float32), the head tied unless {@code untied}. */
    static GptWeights random(GptConfig c, long seed) {
        Random rng = new Random(seed);
        Map<String, float[]> t = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : GptWeights.shapes(c).entrySet()) {
            String name = e.getKey();
            int n = (int) java.util.Arrays.stream(e.getValue()).reduce(1L, (a, b) -> a * b);
            boolean norm = name.contains("ln_") && name.endsWith(".weight");
            double s = name.startsWith("wte") || name.startsWith("lm_head") ? 0.3 : name.startsWith("wpe") ? 0.1
                : name.endsWith(".bias") ? 0.05 : norm ? 0.1 : name.contains("c_attn") ? 0.15 : 0.08;
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) ((norm ? 1 : 0) + rng.nextGaussian() * s);
            }
            t.put(name, v);
        }
        return GptWeights.of(c, t);
    }
}
