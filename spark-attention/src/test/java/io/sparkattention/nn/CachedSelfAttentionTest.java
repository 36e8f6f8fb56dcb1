package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.FlashAttention;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MultiHeadAttentionLayer#cachedForward}: a sequence fed as a prompt and then token by
 * token over its {@link KeyValueCache} gives each row what causal self-attention over the whole
 * sequence gives it (direct and tiled lengths), two sequences side by side each their own; and the
 * refusals of a kernel that is not causal bottom-right and of a cache too small.
 */
class CachedSelfAttentionTest {

    private static final FlashAttention CAUSAL = new FlashAttention(AttentionSpec.defaults().withCausal(true)
        .withAlignment(CausalAlignment.BOTTOM_RIGHT));

    @ParameterizedTest(name = "L = {0}")
    @ValueSource(ints = {9, 150})
    void promptThenTokensEqualTheWholeSequence(int L) {
        int E = 16;
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(MultiHeadAttentionInit.pytorchDefault(E, 4, E, E,
            true, 3), CAUSAL);
        float[] x = new float[L * E];
        Random rng = new Random(L);
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) rng.nextGaussian();
        }
        float[] whole = new float[L * E];
        layer.selfForward(x, new int[] {0, L}, 1, new SelfAttentionRecord(), whole, null);
        int prompt = L / 3;
        KeyValueCache[] caches = {new KeyValueCache(L, E), new KeyValueCache(L, E)};
        SelfAttentionRecord rec = new SelfAttentionRecord();
        float[] y = new float[2 * L * E];
        float[] both = new float[2 * prompt * E];
        System.arraycopy(x, 0, both, 0, prompt * E);
        System.arraycopy(x, 0, both, prompt * E, prompt * E);
        layer.cachedForward(both, new int[] {0, prompt, 2 * prompt}, 2, caches, rec, y);
        assertClose(whole, 0, y, 0, prompt * E, "the prompt");
        assertClose(whole, 0, y, prompt * E, prompt * E, "the prompt, second sequence");
        float[] step = new float[2 * E];
        for (int t = prompt; t < L; t++) {
            System.arraycopy(x, t * E, step, 0, E);
            System.arraycopy(x, t * E, step, E, E);
            layer.cachedForward(step, new int[] {0, 1, 2}, 2, caches, rec, y);
            assertClose(whole, t * E, y, 0, E, "token " + t);
            assertClose(whole, t * E, y, E, E, "token " + t + ", second sequence");
        }
        assertEquals(L, caches[0].length());
        assertEquals(L, caches[1].length());
    }

    @Test
    void aKernelNotCausalBottomRightOrACacheTooSmallIsRefused() {
        MultiHeadAttentionWeights w = MultiHeadAttentionInit.pytorchDefault(8, 2, 8, 8, true, 1);
        float[] x = new float[3 * 8];
        KeyValueCache[] small = {new KeyValueCache(2, 8)};
        MultiHeadAttentionLayer topLeft = new MultiHeadAttentionLayer(w, new FlashAttention(AttentionSpec.defaults()
            .withCausal(true)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> topLeft.cachedForward(x,
            new int[] {0, 3}, 1, small, new SelfAttentionRecord(), new float[3 * 8]));
        assertTrue(e.getMessage().contains("TOP_LEFT"), e.getMessage());
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, CAUSAL);
        e = assertThrows(IllegalArgumentException.class, () -> layer.cachedForward(x, new int[] {0, 3}, 1, small,
            new SelfAttentionRecord(), new float[3 * 8]));
        assertTrue(e.getMessage().contains("cache of sequence 0 (0 of 2 tokens"), e.getMessage());
    }

    private static void assertClose(float[] expected, int eOff, float[] actual, int aOff, int n, String what) {
        for (int i = 0; i < n; i++) {
            assertEquals(expected[eOff + i], actual[aOff + i], 1e-5f * (1 + Math.abs(expected[eOff + i])),
                what + ", value " + i);
        }
    }
}
