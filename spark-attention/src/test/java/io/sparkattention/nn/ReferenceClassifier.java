package io.sparkattention.nn;

/**
 * The attention classifier computed the plain way in float64, straight from its definition
 * (make_training_fixtures.py's AttentionClassifier), as the reference for finite differences:
 * projections, per-head softmax(q·kᵀ/√hd) with the causal mask, output projection, residual,
 * pooling, head and cross-entropy, all in double loops.
 */
final class ReferenceClassifier {

    private final AttentionClassifierNetwork net;

    ReferenceClassifier(AttentionClassifierNetwork net) {
        this.net = net;
    }

    /** K logits of one row of n tokens x (n×E) at parameters {@code theta}. */
    double[] logits(double[] theta, float[] x, int n) {
        int e = net.embedDim(), heads = net.numHeads(), hd = e / heads, k = net.numClasses();
        int inW = net.parameter(AttentionClassifierNetwork.IN_PROJ_WEIGHT).offset();
        int inB = net.parameter(AttentionClassifierNetwork.IN_PROJ_BIAS).offset();
        int outW = net.parameter(AttentionClassifierNetwork.OUT_PROJ_WEIGHT).offset();
        int outB = net.parameter(AttentionClassifierNetwork.OUT_PROJ_BIAS).offset();
        int clsW = net.parameter(AttentionClassifierNetwork.CLASSIFIER_WEIGHT).offset();
        int clsB = net.parameter(AttentionClassifierNetwork.CLASSIFIER_BIAS).offset();
        // qkv[t][c], c in [0, 3E): x·in_proj_weightᵀ + in_proj_bias
        double[][] qkv = new double[n][3 * e];
        for (int t = 0; t < n; t++) {
            for (int c = 0; c < 3 * e; c++) {
                double s = theta[inB + c];
                for (int i = 0; i < e; i++) {
                    s += theta[inW + c * e + i] * x[t * e + i];
                }
                qkv[t][c] = s;
            }
        }
        double[][] attended = new double[n][e];
        double scale = 1 / Math.sqrt(hd);
        for (int h = 0; h < heads; h++) {
            for (int t = 0; t < n; t++) {
                int visible = net.causal() ? t + 1 : n;
                double[] p = new double[visible];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < visible; j++) {
                    double s = 0;
                    for (int i = 0; i < hd; i++) {
                        s += qkv[t][h * hd + i] * qkv[j][e + h * hd + i];
                    }
                    p[j] = s * scale;
                    max = Math.max(max, p[j]);
                }
                double sum = 0;
                for (int j = 0; j < visible; j++) {
                    p[j] = Math.exp(p[j] - max);
                    sum += p[j];
                }
                for (int j = 0; j < visible; j++) {
                    for (int i = 0; i < hd; i++) {
                        attended[t][h * hd + i] += p[j] / sum * qkv[j][2 * e + h * hd + i];
                    }
                }
            }
        }
        double[] pooled = new double[e];
        for (int t = 0; t < n; t++) {
            boolean used = net.pooling() == Pooling.MEAN || (net.pooling() == Pooling.FIRST ? t == 0 : t == n - 1);
            if (!used) {
                continue;
            }
            for (int c = 0; c < e; c++) {
                double a = theta[outB + c];
                for (int i = 0; i < e; i++) {
                    a += theta[outW + c * e + i] * attended[t][i];
                }
                double hidden = net.residual() ? x[t * e + c] + a : a;
                pooled[c] += net.pooling() == Pooling.MEAN ? hidden / n : hidden;
            }
        }
        double[] z = new double[k];
        for (int c = 0; c < k; c++) {
            z[c] = theta[clsB + c];
            for (int i = 0; i < e; i++) {
                z[c] += theta[clsW + c * e + i] * pooled[i];
            }
        }
        return z;
    }

    /** Cross-entropy of one row. */
    double loss(double[] theta, float[] x, int n, int label) {
        double[] z = logits(theta, x, n);
        double max = Double.NEGATIVE_INFINITY;
        for (double v : z) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (double v : z) {
            sum += Math.exp(v - max);
        }
        return max + Math.log(sum) - z[label];
    }
}
