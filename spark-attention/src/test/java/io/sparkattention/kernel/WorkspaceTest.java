package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkspaceTest {

    @Test
    @DisplayName("the score stride holds the strip, in whole 8-float groups, an odd number of them")
    void scoreStrideIsAnOddNumberOfGroups() {
        for (int w = 1; w <= 1024; w++) {
            int lds = Workspace.scoreStride(w);
            assertTrue(lds >= w && lds < w + 16, "w = " + w + ": " + lds);
            assertEquals(0, lds % 8, "w = " + w);
            assertEquals(1, (lds / 8) % 2, "w = " + w);
            assertTrue(lds >= Workspace.scoreStride(w - 1) || w == 1, "never shorter for a wider strip: w = " + w);
        }
        assertEquals(264, Workspace.scoreStride(256), "the blas path's full 256-query strip");
        assertEquals(40, Workspace.scoreStride(32), "its causal edge strip");
        assertEquals(8, Workspace.scoreStride(5));
    }

    @Test
    @DisplayName("a workspace's score tile fits the widest strip at its padded stride")
    void scoreTileFitsThePaddedStride() {
        AttentionSpec spec = AttentionSpec.defaults().withBlocks(256, 100);
        Workspace ws = new Workspace();
        ws.ensure(spec, 64, 64);
        assertEquals(264 * 100, ws.scores.length);
    }
}
