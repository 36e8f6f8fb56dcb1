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
    @DisplayName("parse accepts mean, first (cls), last and max in any case and names the accepted values otherwise")
    void parse() {
        assertEquals(Pooling.MEAN, Pooling.parse("mean"));
        assertEquals(Pooling.FIRST, Pooling.parse(" First "));
        assertEquals(Pooling.FIRST, Pooling.parse("CLS"));
        assertEquals(Pooling.LAST, Pooling.parse("LAST"));
        assertEquals(Pooling.MAX, Pooling.parse("max"));
        for (Pooling p : Pooling.values()) {
            assertEquals(p, Pooling.parse(p.paramValue()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Pooling.parse("median"));
        assertTrue(e.getMessage().contains("pooling") && e.getMessage().contains("median"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Pooling.parse(null));
    }

    @Test
    @DisplayName("max pools column-wise and has no backward; the classifier refuses it")
    void max() {
        float[] out = new float[2];
        Pooling.MAX.pool(H, 3, 2, out);
        float[] expected = {Math.max(H[0], Math.max(H[2], H[4])), Math.max(H[1], Math.max(H[3], H[5]))};
        assertArrayEquals(expected, out);
        assertThrows(UnsupportedOperationException.class, () -> Pooling.MAX.backward(out, 3, 2, new float[6]));
        assertThrows(IllegalArgumentException.class,
            () -> new AttentionClassifierNetwork(4, 1, 2, false, true, Pooling.MAX));
    }
}
