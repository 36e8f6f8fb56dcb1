package io.sparkattention.kernel;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Direct self-attention from a fused [q | k | v] against float64, on awkward shapes, both paths. */
class DirectAttentionTest {

    @ParameterizedTest(name = "L={0} H={1} d={2}")
    @CsvSource({"1, 1, 1", "1, 12, 32", "2, 2, 16", "3, 4, 12", "5, 4, 8", "16, 3, 20", "17, 12, 32", "33, 2, 64",
        "64, 1, 80", "100, 12, 32", "128, 4, 17"})
    void matchesFloat64WithAndWithoutProbabilities(int L, int H, int d) {
        Random r = new Random(L * 31L + H * 7L + d);
        int E = H * d;
        float[] qkv = new float[L * 3 * E];
        for (int i = 0; i < qkv.length; i++) {
            qkv[i] = (float) (r.nextGaussian() * 1.5);
        }
        float scale = (float) (1 / Math.sqrt(d));
        double[] exactCtx = new double[L * E];
        double[] exactProbs = new double[H * L * L];
        for (int h = 0; h < H; h++) {
            for (int i = 0; i < L; i++) {
                double[] s = new double[L];
                double max = Double.NEGATIVE_INFINITY, sum = 0;
                for (int c = 0; c < L; c++) {
                    for (int t = 0; t < d; t++) {
                        s[c] += (double) qkv[i * 3 * E + h * d + t] * qkv[c * 3 * E + E + h * d + t];
                    }
                    s[c] *= scale;
                    max = Math.max(max, s[c]);
                }
                for (int c = 0; c < L; c++) {
                    s[c] = Math.exp(s[c] - max);
                    sum += s[c];
                }
                for (int c = 0; c < L; c++) {
                    exactProbs[(h * L + i) * L + c] = s[c] / sum;
                    for (int t = 0; t < d; t++) {
                        exactCtx[i * E + h * d + t] += s[c] / sum * qkv[c * 3 * E + 2 * E + h * d + t];
                    }
                }
            }
        }
        for (boolean vector : new boolean[] {true, false}) {
            float[] ctx = new float[L * E];
            float[] probs = new float[H * L * L];
            DirectAttention.Workspace ws = new DirectAttention.Workspace();
            if (vector) {
                DirectAttention.selfAttention(qkv, L, H, d, scale, ctx, probs, ws);
            } else {
                int e = E;
                DirectAttention.forward(new ScalarDirectAttention(), AttentionSpec.defaults().withScale(scale),
                    AttentionShape.self(L, H, d), new MatrixView(qkv, 0, 3 * e), new MatrixView(qkv, e, 3 * e),
                    new MatrixView(qkv, 2 * e, 3 * e), RowMask.NONE, new MatrixView(ctx, 0, e), null, 0, probs, true,
                    ws);
            }
            for (int i = 0; i < ctx.length; i++) {
                assertTrue(Math.abs(ctx[i] - exactCtx[i]) <= 1e-5 * (1 + Math.abs(exactCtx[i])),
                    (vector ? "vector" : "scalar") + " ctx[" + i + "] " + ctx[i] + " vs " + exactCtx[i]);
            }
            for (int i = 0; i < probs.length; i++) {
                assertTrue(Math.abs(probs[i] - exactProbs[i]) <= 1e-6, "probs[" + i + "]");
            }
            float[] again = new float[L * E];
            DirectAttention.selfAttention(qkv, L, H, d, scale, again, null, ws);
            if (vector) {
                org.junit.jupiter.api.Assertions.assertArrayEquals(ctx, again, "probabilities change nothing");
            }
        }
    }
}
