package io.sparkattention.kernel;

import io.sparkattention.testing.Close;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct path ({@link AttentionPath#DIRECT}) of unmasked self-attention read in place from a
 * fused [q | k | v], against float64, on awkward shapes, with both arithmetics: the output
 * element by element, and the per-head probabilities from its log-sum-exp ({@link Close}).
 */
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
        AttentionShape shape = AttentionShape.self(L, H, d);
        MatrixView q = new MatrixView(qkv, 0, 3 * E), k = new MatrixView(qkv, E, 3 * E);
        MatrixView v = new MatrixView(qkv, 2 * E, 3 * E);
        FlashAttention direct = new FlashAttention(AttentionSpec.defaults().withScale(scale))
            .withPath(AttentionPath.DIRECT);
        for (DirectAttention.Impl impl : new DirectAttention.Impl[] {DirectAttention.IMPL, new ScalarDirectAttention()}) {
            FlashAttention kernel = direct.withDirectArithmetic(impl);
            assertTrue(kernel.direct(shape), "the direct path");
            String name = impl.name();
            float[] ctx = new float[L * E];
            float[] lse = new float[H * L];
            float[] probs = new float[H * L * L];
            Workspace ws = new Workspace();
            kernel.forward(shape, q, k, v, RowMask.NONE, new MatrixView(ctx, 0, E), lse, 0, ws);
            kernel.weights(shape, q, k, RowMask.NONE, lse, 0, true, probs, ws);
            for (int i = 0; i < ctx.length; i++) {
                assertTrue(Math.abs(ctx[i] - exactCtx[i]) <= 1e-5 * (1 + Math.abs(exactCtx[i])),
                    name + " ctx[" + i + "] " + ctx[i] + " vs " + exactCtx[i]);
            }
            // From the log-sum-exp, exp(s − lse): within the project's criterion, not the inline softmax's 1e-6.
            Close.assertClose(name + " probabilities", exactProbs, probs);
            float[] again = new float[L * E];
            kernel.forward(shape, q, k, v, RowMask.NONE, new MatrixView(again, 0, E), null, 0, ws);
            assertArrayEquals(ctx, again, name + ": the log-sum-exp changes nothing");
        }
    }
}
