package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Floats to doubles and back: widening is exact, narrowing rounds each value to the nearest float,
 * and neither touches anything outside its range, at every length and offset (vector bodies, the
 * one-at-a-time tails, chunk-sized ranges, signed zero, overflow to infinity and NaN).
 */
class VectorWideningTest {

    private static final int[] LENGTHS = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 100,
        VectorWidening.CHUNK - 1, VectorWidening.CHUNK, VectorWidening.CHUNK + 21};

    @Test
    @DisplayName("narrow rounds every value of its range to the nearest float and writes nothing else")
    void narrowWritesItsRangeOnly() {
        SplittableRandom random = new SplittableRandom(7);
        for (int len : LENGTHS) {
            for (int from : new int[] {0, 1, 5, 16}) {
                double[] w = new double[len];
                for (int i = 0; i < len; i++) {
                    w[i] = random.nextDouble(-1e6, 1e6) * Math.pow(10, random.nextInt(-40, 30));
                }
                if (len > 2) {
                    w[0] = -0.0;
                    w[1] = 1e300;
                    w[2] = Double.NaN;
                }
                float[] a = new float[from + len + 40];
                Arrays.fill(a, 12345.5f);
                VectorWidening.narrow(w, len, a, from);
                for (int i = 0; i < a.length; i++) {
                    float want = i >= from && i < from + len ? (float) w[i - from] : 12345.5f;
                    assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(a[i]),
                        "len " + len + " from " + from + " index " + i);
                }
            }
        }
    }

    @Test
    @DisplayName("widen copies every float of its range exactly and writes nothing past it")
    void widenIsExact() {
        SplittableRandom random = new SplittableRandom(8);
        for (int len : LENGTHS) {
            for (int from : new int[] {0, 3, 16}) {
                float[] a = new float[from + len + 5];
                for (int i = 0; i < a.length; i++) {
                    a[i] = (float) (random.nextGaussian() * Math.pow(10, random.nextInt(-30, 30)));
                }
                double[] w = new double[len + 40];
                Arrays.fill(w, -7.25);
                VectorWidening.widen(a, from, len, w);
                for (int i = 0; i < w.length; i++) {
                    double want = i < len ? a[from + i] : -7.25;
                    assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(w[i]),
                        "len " + len + " from " + from + " index " + i);
                }
            }
        }
    }
}
