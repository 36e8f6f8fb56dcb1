package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

/** PyTorch's nn.MultiheadAttention initialisation: distributions, bounds, determinism. */
class MultiHeadAttentionInitTest {

    @Test
    @DisplayName("packed projections: xavier bound √(6/4E) for q, k and v; out_proj ±1/√E; zero biases")
    void packedBounds() {
        int e = 64;
        MultiHeadAttentionWeights w = MultiHeadAttentionInit.pytorchDefault(e, 8, e, e, true, 7);
        double xavier = Math.sqrt(6.0 / (4 * e));
        for (float[] m : new float[][] {w.qWeight(), w.kWeight(), w.vWeight()}) {
            assertUniform(m, xavier);
        }
        assertUniform(w.outWeight(), 1 / Math.sqrt(e));
        for (float[] b : new float[][] {w.qBias(), w.kBias(), w.vBias(), w.outBias()}) {
            assertArrayEquals(new float[e], b);
        }
        assertEquals(8, w.numHeads());
        assertEquals(4L * e * e + 4L * e, w.parameterCount());
    }

    @Test
    @DisplayName("kdim/vdim ≠ E: each projection gets its own xavier bound √(6/(in + E))")
    void separateBounds() {
        MultiHeadAttentionWeights w = MultiHeadAttentionInit.pytorchDefault(32, 4, 12, 80, true, 1);
        assertUniform(w.qWeight(), Math.sqrt(6.0 / 64));
        assertUniform(w.kWeight(), Math.sqrt(6.0 / 44));
        assertUniform(w.vWeight(), Math.sqrt(6.0 / 112));
        assertEquals(12, w.kdim());
        assertEquals(80, w.vdim());
    }

    @Test
    @DisplayName("equal seeds give bit-identical weights; other seeds other weights; bias=false has none")
    void deterministic() {
        MultiHeadAttentionWeights a = MultiHeadAttentionInit.pytorchDefault(16, 2, 16, 16, false, 42);
        MultiHeadAttentionWeights b = MultiHeadAttentionInit.pytorchDefault(16, 2, 16, 16, false, 42);
        MultiHeadAttentionWeights c = MultiHeadAttentionInit.pytorchDefault(16, 2, 16, 16, false, 43);
        assertArrayEquals(a.qWeight(), b.qWeight());
        assertArrayEquals(a.outWeight(), b.outWeight());
        assertFalse(Arrays.equals(a.qWeight(), c.qWeight()));
        assertFalse(a.hasBias());
        assertNull(a.outBias());
    }

    @Test
    @DisplayName("heads that do not divide E are refused, naming both")
    void headsMustDivide() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MultiHeadAttentionInit.pytorchDefault(16, 5, 16, 16, true, 0));
        assertEquals("numHeads (5) must divide embed_dim (16)", e.getMessage());
    }

    /** Every value inside ±bound, and the sample variance near a uniform's bound²/3. */
    private static void assertUniform(float[] m, double bound) {
        double sum = 0, sq = 0, max = 0;
        for (float x : m) {
            sum += x;
            sq += (double) x * x;
            max = Math.max(max, Math.abs(x));
        }
        assertTrue(max <= bound, "max |w| " + max + " > bound " + bound);
        assertTrue(max > 0.95 * bound, "max |w| " + max + " far below bound " + bound);
        double mean = sum / m.length, variance = sq / m.length - mean * mean;
        assertEquals(bound * bound / 3, variance, 0.1 * bound * bound / 3, "variance");
    }
}
