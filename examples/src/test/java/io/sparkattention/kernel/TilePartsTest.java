package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmarks' handle on one tile runs the kernel's own steps on strided inputs. */
class TilePartsTest {

    static Stream<Arguments> everyImplementation() {
        return TileOpsImplementations.all().stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("a one-strip tile's scores are scale·Q·Kᵀ key-major, its probabilities lie in [0, 1], and P·V "
        + "accumulates")
    void stepsOfOneStrip(TileOps ops) {
        int bq = 8, bk = 20, d = 16, ld = 48;
        RandomTensors rnd = new RandomTensors(4);
        float[] q = rnd.normal(bq * ld, 1), k = rnd.normal(bk * ld, 1), v = rnd.normal(bk * ld, 1);
        TileParts tile = new TileParts(ops, bq, bk, d, q, k, v, ld, 0.25f);
        float[] s = tile.scores();
        double[] expected = new double[bq * bk];
        float[] got = new float[bq * bk];
        for (int c = 0; c < bk; c++) {
            for (int r = 0; r < bq; r++) {
                double dot = 0;
                for (int t = 0; t < d; t++) {
                    dot += (double) q[r * ld + t] * k[c * ld + t];
                }
                expected[c * bq + r] = 0.25 * dot;
                got[c * bq + r] = s[c * ops.scoreStride(bq) + r];
            }
        }
        assertClose("scores", expected, got);
        float[] p = tile.scoresThenSoftmax();
        for (int c = 0; c < bk; c++) {
            for (int r = 0; r < bq; r++) {
                float x = p[c * ops.scoreStride(bq) + r];
                assertTrue(x >= 0f && x <= 1f, "probability " + x);
            }
        }
        float[] acc = tile.accumulate();
        boolean any = false;
        for (int i = 0; i < bq * d; i++) {
            any |= acc[i] != 0f;
        }
        assertTrue(any, "P·V accumulated");
    }
}
