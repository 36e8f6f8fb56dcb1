package io.sparkattention.nn;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * RoPE against PyTorch's formulation ({@code x·cos + rotate_half(x)·sin}, as in Hugging Face's
 * Llama and GPT-NeoX), against a hand-computed value, and by its defining property.
 */
class RotaryEncodingTest {

    /**
     * The PyTorch formulation, in float64: {@code inv_freq = 1/base^(arange(0, hd, 2)/hd)},
     * {@code emb = cat(freqs, freqs)}, {@code out = x·cos(emb) + rotate_half(x)·sin(emb)} with
     * {@code rotate_half(x) = cat(−x2, x1)}.
     */
    private static double[] pytorchStyle(float[] x, int rows, int width, int heads, long offset, double base) {
        int hd = width / heads, half = hd / 2;
        double[] out = new double[x.length];
        for (int r = 0; r < rows; r++) {
            for (int h = 0; h < heads; h++) {
                int at = r * width + h * hd;
                for (int j = 0; j < hd; j++) {
                    double invFreq = 1.0 / Math.pow(base, (double) (2 * (j % half)) / hd);
                    double angle = (offset + r) * invFreq;
                    double rotated = j < half ? -x[at + j + half] : x[at + j - half];
                    out[at + j] = x[at + j] * Math.cos(angle) + rotated * Math.sin(angle);
                }
            }
        }
        return out;
    }

    @Test
    @DisplayName("matches PyTorch's rotate_half formulation for several heads, widths, offsets and bases")
    void matchesPyTorchFormulation() {
        RandomTensors rnd = new RandomTensors(11);
        int[][] shapes = {{1, 2}, {4, 8}, {2, 64}, {3, 6}};
        for (int[] s : shapes) {
            int heads = s[0], width = s[0] * s[1], rows = 33;
            for (long offset : new long[] {0, 7, 4096}) {
                for (double base : new double[] {10000, 500000}) {
                    float[] x = rnd.normal(rows * width, 1);
                    assertClose(heads + " heads × " + s[1] + ", offset " + offset + ", base " + base,
                        pytorchStyle(x, rows, width, heads, offset, base),
                        new RotaryEncoding(base).rotate(x, rows, width, heads, offset));
                }
            }
        }
    }

    @Test
    @DisplayName("hand-computed: head_dim 2 rotates (1, 0) at position m to (cos m, sin m); position 0 is the identity")
    void handComputed() {
        float[] x = {1, 0, 1, 0, 1, 0};
        float[] out = new RotaryEncoding(10000).rotate(x, 3, 2, 1, 0);
        float[] expected = {1, 0, (float) Math.cos(1), (float) Math.sin(1), (float) Math.cos(2), (float) Math.sin(2)};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], out[i], 1e-7, "value " + i);
        }
        // head_dim 4: θ = (1, 1/100); position 1 rotates pair (x0, x2) by 1 rad and (x1, x3) by 0.01 rad.
        float[] y = new RotaryEncoding(10000).rotate(new float[] {0, 0, 0, 0, 1, 2, 3, 4}, 2, 4, 1, 0);
        assertEquals(1 * Math.cos(1) - 3 * Math.sin(1), y[4], 1e-6);
        assertEquals(2 * Math.cos(0.01) - 4 * Math.sin(0.01), y[5], 1e-6);
        assertEquals(3 * Math.cos(1) + 1 * Math.sin(1), y[6], 1e-6);
        assertEquals(4 * Math.cos(0.01) + 2 * Math.sin(0.01), y[7], 1e-6);
    }

    @Test
    @DisplayName("relative: q_m·k_n depends only on m − n, and norms are kept")
    void relativePositionProperty() {
        RandomTensors rnd = new RandomTensors(5);
        int hd = 16;
        float[] q = rnd.normal(hd, 1), k = rnd.normal(hd, 1);
        RotaryEncoding rope = new RotaryEncoding(10000);
        for (int delta : new int[] {0, 1, 5, 40}) {
            double first = Double.NaN;
            for (long n : new long[] {0, 3, 100, 2000}) {
                double dot = dot(rope.rotate(q, 1, hd, 1, n + delta), rope.rotate(k, 1, hd, 1, n));
                if (Double.isNaN(first)) {
                    first = dot;
                } else {
                    assertEquals(first, dot, 1e-4, "m − n = " + delta + ", n = " + n);
                }
            }
        }
        float[] rotated = rope.rotate(q, 1, hd, 1, 12345);
        assertEquals(Math.sqrt(dot(q, q)), Math.sqrt(dot(rotated, rotated)), 1e-5);
    }

    @Test
    @DisplayName("an odd head_dim or heads that do not divide the width are refused with the numbers")
    void refusals() {
        RotaryEncoding rope = new RotaryEncoding(10000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> rope.rotate(new float[12], 1, 12, 4, 0));
        assertEquals("head_dim 3 (12/4) is odd; rotary encoding rotates pairs of values and needs an even head_dim",
            e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> rope.rotate(new float[12], 1, 12, 5, 0));
        assertEquals("numHeads (5) must divide the width (12)", e.getMessage());
        assertEquals(0, rope.rotate(new float[0], 0, 0, 4, 0).length, "no rows: nothing to check");
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }
}
