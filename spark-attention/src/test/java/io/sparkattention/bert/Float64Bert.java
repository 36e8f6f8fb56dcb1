package io.sparkattention.bert;

/**
 * A float64 BERT forward from {@link BertWeights}, written from the definition (the reference of
 * minilm_reference.py in Java), for sequences the fixtures do not cover.
 */
final class Float64Bert {

    private Float64Bert() {
    }

    /** The last hidden state, L×E. */
    static double[] forward(BertWeights w, int[] ids) {
        BertConfig c = w.config();
        int L = ids.length, E = c.hidden(), F = c.intermediate(), H = c.heads(), d = c.headDim();
        double eps = c.layerNormEps();
        double[] x = new double[L * E];
        float[] word = w.tensor(BertWeights.WORD_EMBEDDINGS), pos = w.tensor(BertWeights.POSITION_EMBEDDINGS);
        float[] type = w.tensor(BertWeights.TOKEN_TYPE_EMBEDDINGS);
        for (int i = 0; i < L; i++) {
            for (int j = 0; j < E; j++) {
                x[i * E + j] = (double) word[ids[i] * E + j] + pos[i * E + j] + type[j];
            }
        }
        norm(x, L, E, w.tensor(BertWeights.EMBEDDINGS_NORM_WEIGHT), w.tensor(BertWeights.EMBEDDINGS_NORM_BIAS), eps);
        for (int n = 0; n < c.layers(); n++) {
            BertWeights.Layer p = w.layer(n);
            double[] q = linear(x, L, E, p.queryWeight(), p.queryBias(), E);
            double[] k = linear(x, L, E, p.keyWeight(), p.keyBias(), E);
            double[] v = linear(x, L, E, p.valueWeight(), p.valueBias(), E);
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
                    for (int t = 0; t < d; t++) {
                        double acc = 0;
                        for (int j = 0; j < L; j++) {
                            acc += s[j] * v[j * E + h * d + t];
                        }
                        ctx[i * E + h * d + t] = acc / sum;
                    }
                }
            }
            double[] a = linear(ctx, L, E, p.attentionOutputWeight(), p.attentionOutputBias(), E);
            add(x, a);
            norm(x, L, E, p.attentionNormWeight(), p.attentionNormBias(), eps);
            double[] hdn = linear(x, L, E, p.intermediateWeight(), p.intermediateBias(), F);
            for (int i = 0; i < hdn.length; i++) {
                hdn[i] = 0.5 * hdn[i] * (1 + GeluTest.exactErf(hdn[i] / Math.sqrt(2)));
            }
            double[] o = linear(hdn, L, F, p.outputWeight(), p.outputBias(), E);
            add(x, o);
            norm(x, L, E, p.outputNormWeight(), p.outputNormBias(), eps);
        }
        return x;
    }

    private static double[] linear(double[] x, int L, int in, float[] weight, float[] bias, int out) {
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

    private static void norm(double[] x, int L, int E, float[] g, float[] b, double eps) {
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

    /** The largest per-token relative L2 error of float states against double ones. */
    static double worstRelative(float[] states, double[] exact, int E) {
        double worst = 0;
        for (int i = 0; i < exact.length / E; i++) {
            double diff = 0, norm = 0;
            for (int j = 0; j < E; j++) {
                diff += (states[i * E + j] - exact[i * E + j]) * (states[i * E + j] - exact[i * E + j]);
                norm += exact[i * E + j] * exact[i * E + j];
            }
            worst = Math.max(worst, Math.sqrt(diff / norm));
        }
        return worst;
    }
}
