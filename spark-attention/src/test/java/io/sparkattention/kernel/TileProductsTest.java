package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


import static io.sparkattention.testing.Close.assertClose;

/** The backward pass's key-side tile product, for every tile implementation, against float64. */
class TileProductsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
    @DisplayName("accumulateKeys adds alpha times the strip's transpose times the query rows, on strided views of "
        + "every width the register blocks and tails meet")
    void accumulateKeysMatchesReference(TileOps ops) {
        RandomTensors rnd = new RandomTensors(17);
        for (int trial = 0; trial < 300; trial++) {
            int w = rnd.pick(1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 64, 200);
            int nk = rnd.between(1, 23), n = rnd.pick(1, 3, 8, 15, 16, 17, 31, 32, 33, 64, 65, 80);
            int lds = ops.scoreStride(w), ldb = n + rnd.between(0, 9), ldc = n + rnd.between(0, 9);
            int bOff = rnd.between(0, 5), cOff = rnd.between(0, 5);
            float alpha = rnd.pick(new Float[] {1f, 0.125f, -2.5f});
            float[] p = rnd.normal(nk * lds, 1), b = rnd.normal(bOff + w * ldb, 1), c = rnd.normal(cOff + nk * ldc, 1);
            double[] expected = new double[c.length];
            for (int i = 0; i < c.length; i++) {
                expected[i] = c[i];
            }
            for (int i = 0; i < nk; i++) {
                for (int t = 0; t < n; t++) {
                    double sum = 0;
                    for (int r = 0; r < w; r++) {
                        sum += (double) p[i * lds + r] * b[bOff + r * ldb + t];
                    }
                    expected[cOff + i * ldc + t] += alpha * sum;
                }
            }
            ops.accumulateKeys(w, nk, n, alpha, p, lds, b, bOff, ldb, c, cOff, ldc);
            assertClose("w=" + w + " nk=" + nk + " n=" + n + " alpha=" + alpha, expected, c);
        }
    }
}
