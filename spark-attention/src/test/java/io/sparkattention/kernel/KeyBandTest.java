package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The band answers that a (query block, key block) pair has a visible key exactly when some query
 * of the block may see some key of the block by the mask's definition (causal, alignment, window,
 * padding), checked element by element on random settings. The sequence strategy skips the
 * others, and the kernel's tile walk the key tiles outside it.
 */
class KeyBandTest {

    @Test
    @DisplayName("a block pair is skipped if and only if every (query, key) in it is masked")
    void skipsExactlyTheMaskedBlocks() {
        RandomTensors rnd = new RandomTensors(42);
        for (int trial = 0; trial < 400; trial++) {
            int L = rnd.between(1, 40), S = rnd.between(1, 40), block = rnd.between(1, 12);
            boolean causal = rnd.uniform() < 0.6;
            CausalAlignment alignment = rnd.uniform() < 0.5 ? CausalAlignment.TOP_LEFT : CausalAlignment.BOTTOM_RIGHT;
            int left = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 10), right = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 10);
            int valid = rnd.uniform() < 0.5 ? -1 : rnd.between(0, S);
            AttentionSpec spec = AttentionSpec.defaults().withCausal(causal).withAlignment(alignment).withWindow(left, right);
            KeyBand visible = new KeyBand(spec, L, S, valid);
            long off = alignment.diagonalOffset(L, S);
            for (int q0 = 0; q0 < L; q0 += block) {
                for (int k0 = 0; k0 < S; k0 += block) {
                    boolean any = false;
                    for (int i = q0; i < Math.min(L, q0 + block); i++) {
                        for (int j = k0; j < Math.min(S, k0 + block); j++) {
                            boolean v = valid < 0 || j < valid;
                            v &= !causal || j <= i + off;
                            v &= left < 0 || j >= i + off - left;
                            v &= causal || right < 0 || j <= i + off + right;
                            any |= v;
                        }
                    }
                    assertEquals(any, visible.any(q0, Math.min(L, q0 + block), k0, Math.min(S, k0 + block)),
                        () -> spec + " L=" + L + " S=" + S + " valid=" + valid + " block " + block);
                }
            }
        }
    }
}
