package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pooling over a row's valid tokens, and its backward pass, on a 3×2 example. */
class PoolingTest {

    /** Three tokens of width 2, then a fourth row that is not part of the sequence. */
    private static final float[] H = {1f, 2f, 3f, 4f, 5f, 9f, 100f, 100f};

    @Test
    @DisplayName("mean averages the valid rows, first takes row 0, last takes the last valid row")
    void forward() {
        float[] out = new float[2];
        Pooling.MEAN.pool(H, 3, 2, out);
        assertArrayEquals(new float[] {3f, 5f}, out);
        Pooling.FIRST.pool(H, 3, 2, out);
        assertArrayEquals(new float[] {1f, 2f}, out);
        Pooling.LAST.pool(H, 3, 2, out);
        assertArrayEquals(new float[] {5f, 9f}, out);
    }

    @Test
    @DisplayName("backward: the mean spreads dPooled/n over every row; first and last put it on their row only")
    void backward() {
        float[] dPooled = {3f, -6f};
        float[] dh = new float[8];
        dh[6] = 42f;  // outside the sequence: never touched
        Pooling.MEAN.backward(dPooled, 3, 2, dh);
        assertArrayEquals(new float[] {1f, -2f, 1f, -2f, 1f, -2f, 42f, 0f}, dh);
        Pooling.FIRST.backward(dPooled, 3, 2, dh);
        assertArrayEquals(new float[] {3f, -6f, 0f, 0f, 0f, 0f, 42f, 0f}, dh);
        Pooling.LAST.backward(dPooled, 3, 2, dh);
        assertArrayEquals(new float[] {0f, 0f, 0f, 0f, 3f, -6f, 42f, 0f}, dh);
    }

    @Test
    @DisplayName("parse accepts mean, first and last in any case and names the parameter otherwise")
    void parse() {
        assertEquals(Pooling.MEAN, Pooling.parse("mean"));
        assertEquals(Pooling.FIRST, Pooling.parse(" First "));
        assertEquals(Pooling.LAST, Pooling.parse("LAST"));
        for (Pooling p : Pooling.values()) {
            assertEquals(p, Pooling.parse(p.paramValue()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Pooling.parse("max"));
        assertTrue(e.getMessage().contains("pooling") && e.getMessage().contains("max"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Pooling.parse(null));
    }
}
