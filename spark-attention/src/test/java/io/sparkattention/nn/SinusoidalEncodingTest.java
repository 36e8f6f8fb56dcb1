package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkattention.testing.RandomTensors;

/** The sinusoidal encoding against the paper's formula evaluated directly in float64. */
class SinusoidalEncodingTest {

    /** PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d)). */
    private static double reference(double base, long pos, int c, int d) {
        int i = c / 2;
        double angle = pos / Math.pow(base, 2.0 * i / d);
        return c % 2 == 0 ? Math.sin(angle) : Math.cos(angle);
    }

    @Test
    @DisplayName("the encoding is the paper's formula, at small and large positions, even and odd widths")
    void matchesFormula() {
        for (int d : new int[] {1, 6, 7, 64}) {
            for (long offset : new long[] {0, 5, 100_000}) {
                int rows = 40;
                double[] expected = new double[rows * d];
                for (int r = 0; r < rows; r++) {
                    for (int c = 0; c < d; c++) {
                        expected[r * d + c] = reference(10000, offset + r, c, d);
                    }
                }
                assertClose("d=" + d + " offset=" + offset, expected,
                    new SinusoidalEncoding(10000).encoding(rows, d, offset));
            }
        }
    }

    @Test
    @DisplayName("position 0 is [0, 1, 0, 1, ...]; another base changes the wavelengths")
    void knownValues() {
        float[] pe = new SinusoidalEncoding(SinusoidalEncoding.DEFAULT_BASE).encoding(2, 4, 0);
        assertEquals(0f, pe[0]);
        assertEquals(1f, pe[1]);
        assertEquals(0f, pe[2]);
        assertEquals(1f, pe[3]);
        assertEquals((float) Math.sin(1), pe[4]);
        assertEquals((float) Math.cos(1), pe[5]);
        assertEquals((float) Math.sin(1 / 100.0), pe[6]);
        assertEquals((float) Math.sin(1 / 10.0), new SinusoidalEncoding(100).encoding(2, 4, 0)[6]);
    }

    @Test
    @DisplayName("addTo adds the encoding to the input; bad arguments are refused")
    void addsToInput() {
        float[] x = new RandomTensors(3).normal(5 * 8, 1);
        SinusoidalEncoding enc = new SinusoidalEncoding(10000);
        float[] pe = enc.encoding(5, 8, 2);
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = (double) x[i] + pe[i];
        }
        assertClose("x + PE", expected, enc.addTo(x, 5, 8, 2));
        assertThrows(IllegalArgumentException.class, () -> enc.addTo(x, 5, 7, 0));
        assertThrows(IllegalArgumentException.class, () -> new SinusoidalEncoding(1));
    }
}
