package io.sparkattention.examples.scaling;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The naive reference of the scaling plot computes the same attention as the tiled kernel. */
class NaiveAttentionTest {

    @Test
    void agreesWithTheTiledKernel() {
        SplittableRandom random = new SplittableRandom(11);
        for (int[] shape : new int[][] {{1, 1, 1, 1}, {37, 53, 8, 5}, {130, 130, 16, 16}, {5, 300, 4, 7}}) {
            int L = shape[0], S = shape[1], d = shape[2], dv = shape[3];
            float[] q = random(L * d, random), k = random(S * d, random), v = random(S * dv, random);
            float[] naive = NaiveAttention.forward(L, S, d, dv, q, k, v, (float) (1 / Math.sqrt(d)));
            float[] tiled = new float[L * dv];
            new FlashAttention(AttentionSpec.defaults().withBlocks(16, 32))
                .forward(new AttentionShape(L, S, 1, 1, d, dv), q, k, v, RowMask.NONE, tiled, null);
            for (int i = 0; i < tiled.length; i++) {
                assertEquals(tiled[i], naive[i], 1e-5, "L=" + L + ", S=" + S + ", element " + i);
            }
        }
    }

    @Test
    void refusesScoreMatricesBeyondOneArray() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> NaiveAttention.forward(50_000, 50_000, 1, 1, new float[0], new float[0], new float[0], 1f));
        assertEquals("naive attention needs one L×S array: 50000×50000 is too large", e.getMessage());
    }

    private static float[] random(int n, SplittableRandom random) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (random.nextDouble() * 4 - 2);
        }
        return x;
    }
}
