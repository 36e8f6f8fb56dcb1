package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.ProbabilityDropout;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.TileOps;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.testing.HashedDropout;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MultiHeadAttentionLayer#selfForward} and {@link MultiHeadAttentionLayer#selfBackward} over
 * stacked sequences: a float64 reference of the layer, its central differences for the gradients,
 * each sequence alone, and the separate-projection path; sequences on both sides of the
 * direct/tiled cut-off, grouped-query heads, causal or not, packed or scattered gradient slots.
 */
class SelfAttentionLayerTest {

    /**
     * The layer in float64, straight from its definition: projections, per-head softmax (causal
     * optional) times sequence r's dropout factors ({@code dropout[r]}; none when null), output.
     */
    private static double[] reference(MultiHeadAttentionWeights w, boolean causal, double[] theta, Slots s, float[] x,
                                      int[] starts, int count, ProbabilityDropout[] dropout) {
        int E = w.embedDim(), H = w.numHeads(), Hkv = w.numKvHeads(), d = w.headDim(), Ekv = Hkv * d;
        int M = starts[count];
        double[] y = new double[M * E];
        for (int r = 0; r < count; r++) {
            int s0 = starts[r], L = starts[r + 1] - s0;
            double[][] q = project(theta, s.q, s.qb, E, x, s0, L, E);
            double[][] k = project(theta, s.k, s.kb, Ekv, x, s0, L, E);
            double[][] v = project(theta, s.v, s.vb, Ekv, x, s0, L, E);
            double[][] ctx = new double[L][E];
            for (int h = 0; h < H; h++) {
                int kv = h / (H / Hkv);
                for (int i = 0; i < L; i++) {
                    int n = causal ? i + 1 : L;
                    double[] p = new double[n];
                    double max = Double.NEGATIVE_INFINITY, sum = 0;
                    for (int j = 0; j < n; j++) {
                        for (int t = 0; t < d; t++) {
                            p[j] += q[i][h * d + t] * k[j][kv * d + t];
                        }
                        p[j] /= Math.sqrt(d);
                        max = Math.max(max, p[j]);
                    }
                    for (int j = 0; j < n; j++) {
                        p[j] = Math.exp(p[j] - max);
                        sum += p[j];
                    }
                    for (int j = 0; j < n; j++) {
                        double m = dropout == null ? 1 : dropout[r].factor(h, i, j);
                        for (int t = 0; t < d; t++) {
                            ctx[i][h * d + t] += p[j] / sum * m * v[j][kv * d + t];
                        }
                    }
                }
            }
            for (int i = 0; i < L; i++) {
                for (int c = 0; c < E; c++) {
                    double a = theta[s.ob + c];
                    for (int t = 0; t < E; t++) {
                        a += theta[s.o + c * E + t] * ctx[i][t];
                    }
                    y[(s0 + i) * E + c] = a;
                }
            }
        }
        return y;
    }

    private static double[][] project(double[] theta, int wOff, int bOff, int out, float[] x, int row0, int L, int E) {
        double[][] y = new double[L][out];
        for (int i = 0; i < L; i++) {
            for (int c = 0; c < out; c++) {
                double a = theta[bOff + c];
                for (int t = 0; t < E; t++) {
                    a += theta[wOff + c * E + t] * x[(row0 + i) * E + t];
                }
                y[i][c] = a;
            }
        }
        return y;
    }

    /** Offsets of the eight tensors in a flat vector. */
    private record Slots(int q, int k, int v, int qb, int kb, int vb, int o, int ob, int size) {
        GradientSlots gradientSlots() {
            return new GradientSlots(q, k, v, qb, kb, vb, o, ob);
        }
    }

    private static Slots slots(int E, int Ekv, boolean packed) {
        if (packed) {  // PyTorch's in_proj layout: weights, then biases
            GradientSlots g = GradientSlots.packed(E, Ekv, 0, E * E + 2 * Ekv * E, E * E + 2 * Ekv * E + E + 2 * Ekv,
                2 * E * E + 2 * Ekv * E + E + 2 * Ekv);
            return new Slots(g.qWeight(), g.kWeight(), g.vWeight(), g.qBias(), g.kBias(), g.vBias(), g.outWeight(),
                g.outBias(), 2 * E * E + 2 * Ekv * E + 2 * E + 2 * Ekv);
        }
        // Hugging Face's order: each weight followed by its bias, out first
        int o = 0, ob = E * E, q = ob + E, qb = q + E * E, k = qb + E, kb = k + Ekv * E, v = kb + Ekv;
        int vb = v + Ekv * E;
        return new Slots(q, k, v, qb, kb, vb, o, ob, vb + Ekv);
    }

    private static MultiHeadAttentionWeights weights(int E, int H, int Hkv, float[] t, Slots s) {
        int Ekv = Hkv * (E / H);
        return new MultiHeadAttentionWeights(E, H, Hkv, E, E, Arrays.copyOfRange(t, s.q, s.q + E * E),
            Arrays.copyOfRange(t, s.k, s.k + Ekv * E), Arrays.copyOfRange(t, s.v, s.v + Ekv * E),
            Arrays.copyOfRange(t, s.qb, s.qb + E), Arrays.copyOfRange(t, s.kb, s.kb + Ekv),
            Arrays.copyOfRange(t, s.vb, s.vb + Ekv), Arrays.copyOfRange(t, s.o, s.o + E * E),
            Arrays.copyOfRange(t, s.ob, s.ob + E));
    }

    @ParameterizedTest(name = "E={0} H={1} Hkv={2} lengths={3} causal={4} packed={5} path={6} dropout={7}")
    @CsvSource({
        "8, 2, 2, '3 1 5', false, true, auto, 0",
        "12, 3, 1, '4 0 2 7', true, false, auto, 0",
        "16, 4, 2, '1 130 6', true, true, auto, 0",
        "16, 4, 4, '9 140', false, false, auto, 0",
        "12, 6, 3, '5 17 2', false, true, tiled, 0",
        "12, 6, 3, '5 17 2', true, false, direct, 0",
        "8, 2, 2, '3 1 5', false, true, auto, 0.3",
        "16, 4, 2, '1 130 6', true, true, auto, 0.2",
        "12, 6, 3, '5 17 2', false, false, tiled, 0.5"})
    @DisplayName("stacked self-attention: the float64 layer, its central differences, each sequence alone, the separate "
        + "projections; with dropout, each sequence's own factors")
    void stackedSelfAttention(int E, int H, int Hkv, String lengths, boolean causal, boolean packed, String path,
                              double p) {
        int[] lens = Arrays.stream(lengths.split(" ")).mapToInt(Integer::parseInt).toArray();
        int count = lens.length;
        int[] starts = new int[count + 1];
        for (int r = 0; r < count; r++) {
            starts[r + 1] = starts[r] + lens[r];
        }
        int M = starts[count], Ekv = Hkv * (E / H);
        RandomTensors rnd = new RandomTensors(E * 31L + H + M);
        Slots s = slots(E, Ekv, packed);
        float[] theta = rnd.normal(s.size(), 0.4);
        float[] x = rnd.normal(M * E, 1.0);
        float[] dy = rnd.normal(M * E, 1.0);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal);
        FlashAttention kernel = new FlashAttention(spec, TileOps.get(), AttentionPath.named(path));
        MultiHeadAttentionWeights w = weights(E, H, Hkv, theta, s);
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, kernel);
        ProbabilityDropout[] dropout = p == 0 ? null : new ProbabilityDropout[count];
        for (int r = 0; dropout != null && r < count; r++) {
            dropout[r] = new HashedDropout(977L * r + 13, p);
        }
        SelfAttentionRecord rec = new SelfAttentionRecord();
        float[] y = new float[M * E];
        layer.selfForward(x, starts, count, rec, y, null, dropout);
        double[] thetaD = new double[theta.length];
        for (int i = 0; i < theta.length; i++) {
            thetaD[i] = theta[i];
        }
        assertClose("output vs float64", reference(w, causal, thetaD, s, x, starts, count, dropout), y);
        if (dropout != null) {  // a dropout that keeps everything gives the bits of none
            ProbabilityDropout[] keepAll = new ProbabilityDropout[count];
            Arrays.fill(keepAll, (ProbabilityDropout) (h, i, j) -> 1f);
            float[] none = new float[M * E], kept = new float[M * E];
            layer.selfForward(x, starts, count, new SelfAttentionRecord(), none, null);
            layer.selfForward(x, starts, count, new SelfAttentionRecord(), kept, null, keepAll);
            assertArrayEquals(none, kept, "keep-all dropout vs none");
        }

        for (int r = 0; r < count; r++) {  // each sequence alone; and through the separate projections
            int L = lens[r];
            float[] xr = Arrays.copyOfRange(x, starts[r] * E, starts[r + 1] * E);
            float[] alone = new float[L * E];
            layer.selfForward(xr, new int[] {0, L}, 1, new SelfAttentionRecord(), alone, null,
                dropout == null ? null : new ProbabilityDropout[] {dropout[r]});
            float[] stacked = Arrays.copyOfRange(y, starts[r] * E, starts[r + 1] * E);
            if (layer.linearKernel().name().startsWith("vector")) {
                assertArrayEquals(alone, stacked, "sequence " + r + " alone, bit for bit");
            }
            if (dropout != null) {
                continue;  // the separate projections' path has no dropout
            }
            float[] separate = layer.forward(xr, L, xr, xr, L, RowMask.NONE, AttentionWeightsMode.NONE,
                new Workspace()).values();
            double[] sep = new double[separate.length];
            for (int i = 0; i < sep.length; i++) {
                sep[i] = separate[i];
            }
            assertClose("sequence " + r + " through the separate projections", sep, stacked);
        }

        float[] grad = new float[theta.length];
        float[] dx = new float[M * E];
        layer.selfBackward(x, starts, count, rec, dy, dx, grad, s.gradientSlots(), dropout);
        // central differences of Σ dy∘y on the float64 layer, at sampled parameters and inputs
        double eps = 1e-4;
        for (int trial = 0; trial < 40; trial++) {
            int i = rnd.between(0, theta.length - 1);
            double saved = thetaD[i];
            thetaD[i] = saved + eps;
            double up = dot(dy, reference(w, causal, thetaD, s, x, starts, count, dropout));
            thetaD[i] = saved - eps;
            double down = dot(dy, reference(w, causal, thetaD, s, x, starts, count, dropout));
            thetaD[i] = saved;
            double fd = (up - down) / (2 * eps);
            assertTrue(Math.abs(grad[i] - fd) <= 1e-3 * (1 + Math.abs(fd)), "parameter " + i + ": " + grad[i]
                + " vs central difference " + fd);
        }
        for (int trial = 0; trial < 20 && M > 0; trial++) {
            int i = rnd.between(0, M * E - 1);
            float saved = x[i];
            x[i] = (float) (saved + 1e-2);
            double up = dot(dy, reference(w, causal, thetaD, s, x, starts, count, dropout));
            x[i] = (float) (saved - 1e-2);
            double down = dot(dy, reference(w, causal, thetaD, s, x, starts, count, dropout));
            double h = ((double) (float) (saved + 1e-2) - (double) (float) (saved - 1e-2));
            x[i] = saved;
            double fd = (up - down) / h;
            assertTrue(Math.abs(dx[i] - fd) <= 2e-3 * (1 + Math.abs(fd)), "input " + i + ": " + dx[i]
                + " vs central difference " + fd);
        }
    }

    private static double dot(float[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
