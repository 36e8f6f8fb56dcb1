package io.sparkattention.testing;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.ProbabilityDropout;
import io.sparkattention.kernel.RowMask;

/**
 * The reference the backward kernel is checked against: attention and its gradients in float64,
 * with the whole L×S probability matrix of each head materialised and every mask applied element
 * by element from its definition (as {@link NaiveAttention}). Inputs are float64 so that central
 * differences of {@link #output} are accurate enough to check the gradients themselves.
 *
 * <pre>
 *   P = softmax(scale·Q·Kᵀ + bias + mask)    O = P·V
 *   dV = Pᵀ·dO    dP = dO·Vᵀ    dS = P∘(dP − rowsum(dO∘O))
 *   dQ = scale·dS·K    dK = scale·dSᵀ·Q    dBias = dS (summed over heads for an L×S bias)
 * </pre>
 * With dropout factors M on the probabilities (FlashAttention's): {@code O = (P∘M)·V},
 * {@code dV = (P∘M)ᵀ·dO}, {@code dP = (dO·Vᵀ)∘M}, the rest unchanged (D from the dropped O).
 */
public final class NaiveAttentionGrad {

    /**
     * Gradients, float64, in the kernel's layouts ({@code bias} is null without a bias), and for
     * each the same sums taken over absolute values ({@code |dS|} bounded by
     * {@code P·(Σ|dO||V| + |D|)}): the size of the terms a float32 computation rounds, which sets
     * how close it can get where the terms cancel (nearly one-hot rows of large logits).
     */
    public static final class Gradients {
        public final double[] query;
        public final double[] key;
        public final double[] value;
        public final double[] bias;
        public final double[] queryTerms;
        public final double[] keyTerms;
        public final double[] valueTerms;
        public final double[] biasTerms;

        Gradients(double[][] grads, double[][] terms) {
            this.query = grads[0];
            this.key = grads[1];
            this.value = grads[2];
            this.bias = grads[3];
            this.queryTerms = terms[0];
            this.keyTerms = terms[1];
            this.valueTerms = terms[2];
            this.biasTerms = terms[3];
        }
    }

    private final AttentionSpec spec;
    private final AttentionShape shape;
    private final RowMask mask;
    private final ProbabilityDropout dropout;

    /** The mask's key length and boolean mask are used; its bias is given to each call. */
    public NaiveAttentionGrad(AttentionSpec spec, AttentionShape shape, RowMask mask) {
        this(spec, shape, mask, null);
    }

    /** With dropout factors on the probabilities (null: none). */
    public NaiveAttentionGrad(AttentionSpec spec, AttentionShape shape, RowMask mask, ProbabilityDropout dropout) {
        this.spec = spec;
        this.shape = shape;
        this.mask = mask;
        this.dropout = dropout;
    }

    /** The dropout factor of (h, i, j), 1 without dropout. */
    private double factor(int h, int i, int j) {
        return dropout == null ? 1 : dropout.factor(h, i, j);
    }

    /** Output L×(H·dv) of {@code (softmax(scale·Q·Kᵀ + bias + mask)∘M)·V}; bias L×S, H×L×S or null. */
    public double[] output(double[] q, double[] k, double[] v, double[] bias) {
        int L = shape.queryLength(), H = shape.numHeads(), dv = shape.valueDim();
        double[] out = new double[L * H * dv];
        for (int h = 0; h < H; h++) {
            double[][] p = probabilities(h, q, k, bias);
            int kv = shape.kvHeadOf(h);
            for (int i = 0; i < L; i++) {
                for (int j = 0; j < shape.keyLength(); j++) {
                    double pm = p[i][j] * factor(h, i, j);
                    for (int t = 0; t < dv; t++) {
                        out[i * H * dv + h * dv + t] += pm * v[j * shape.numKvHeads() * dv + kv * dv + t];
                    }
                }
            }
        }
        return out;
    }

    /** Gradients of {@code Σ dOut∘output} with respect to Q, K, V and the bias. */
    public Gradients backward(double[] q, double[] k, double[] v, double[] bias, double[] dOut) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dv = shape.valueDim();
        double scale = scale();
        double[] out = output(q, k, v, bias);
        double[] dq = new double[q.length], dk = new double[k.length], dV = new double[v.length];
        double[] dBias = bias == null ? null : new double[bias.length];
        double[] aq = new double[q.length], ak = new double[k.length], av = new double[v.length];
        double[] ab = bias == null ? null : new double[bias.length];
        for (int h = 0; h < H; h++) {
            double[][] p = probabilities(h, q, k, bias);
            int kv = shape.kvHeadOf(h);
            for (int i = 0; i < L; i++) {
                double delta = 0, deltaTerms = 0;
                for (int t = 0; t < dv; t++) {
                    delta += dOut[i * H * dv + h * dv + t] * out[i * H * dv + h * dv + t];
                    deltaTerms += Math.abs(dOut[i * H * dv + h * dv + t] * out[i * H * dv + h * dv + t]);
                }
                for (int j = 0; j < S; j++) {
                    double dp = 0, dpTerms = 0, m = factor(h, i, j);
                    for (int t = 0; t < dv; t++) {
                        double g = dOut[i * H * dv + h * dv + t];
                        dV[j * Hkv * dv + kv * dv + t] += p[i][j] * m * g;
                        av[j * Hkv * dv + kv * dv + t] += p[i][j] * m * Math.abs(g);
                        dp += g * v[j * Hkv * dv + kv * dv + t];
                        dpTerms += Math.abs(g * v[j * Hkv * dv + kv * dv + t]);
                    }
                    dp *= m;
                    dpTerms *= m;
                    double ds = p[i][j] * (dp - delta), dsTerms = p[i][j] * (dpTerms + deltaTerms);
                    for (int t = 0; t < d; t++) {
                        dq[i * H * d + h * d + t] += scale * ds * k[j * Hkv * d + kv * d + t];
                        dk[j * Hkv * d + kv * d + t] += scale * ds * q[i * H * d + h * d + t];
                        aq[i * H * d + h * d + t] += scale * dsTerms * Math.abs(k[j * Hkv * d + kv * d + t]);
                        ak[j * Hkv * d + kv * d + t] += scale * dsTerms * Math.abs(q[i * H * d + h * d + t]);
                    }
                    if (dBias != null) {
                        dBias[index(dBias.length, h, i, j)] += ds;
                        ab[index(dBias.length, h, i, j)] += dsTerms;
                    }
                }
            }
        }
        return new Gradients(new double[][] {dq, dk, dV, dBias}, new double[][] {aq, ak, av, ab});
    }

    /** Head h's L×S probabilities; a row that sees no key is all 0. */
    private double[][] probabilities(int h, double[] q, double[] k, double[] bias) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), kv = shape.kvHeadOf(h);
        int validKeys = mask.validKeys() < 0 ? S : mask.validKeys();
        long off = spec.alignment() == CausalAlignment.TOP_LEFT ? 0 : (long) S - L;
        double[][] p = new double[L][S];
        for (int i = 0; i < L; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < S; j++) {
                double dot = 0;
                for (int t = 0; t < d; t++) {
                    dot += q[i * H * d + h * d + t] * k[j * Hkv * d + kv * d + t];
                }
                double s = scale() * dot + (bias == null ? 0 : bias[index(bias.length, h, i, j)]);
                boolean visible = j < validKeys;
                visible &= !spec.causal() || j <= i + off;
                visible &= spec.windowLeft() < 0 || j >= i + off - spec.windowLeft();
                visible &= spec.windowRight() < 0 || j <= i + off + spec.windowRight();
                visible &= mask.allowed() == null || mask.allowed()[index(mask.allowed().length, h, i, j)];
                p[i][j] = visible ? s : Double.NEGATIVE_INFINITY;
                max = Math.max(max, p[i][j]);
            }
            if (max == Double.NEGATIVE_INFINITY) {
                p[i] = new double[S];
                continue;
            }
            double sum = 0;
            for (int j = 0; j < S; j++) {
                p[i][j] = Math.exp(p[i][j] - max);
                sum += p[i][j];
            }
            for (int j = 0; j < S; j++) {
                p[i][j] /= sum;
            }
        }
        return p;
    }

    private double scale() {
        return Float.isNaN(spec.scale()) ? 1.0 / Math.sqrt(shape.headDim()) : spec.scale();
    }

    private int index(int length, int h, int i, int j) {
        int plane = shape.queryLength() * shape.keyLength();
        return (length == plane ? 0 : h * plane) + i * shape.keyLength() + j;
    }

    /** Float32 values widened. */
    public static double[] widen(float[] x) {
        if (x == null) {
            return null;
        }
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i];
        }
        return y;
    }
}
