package io.sparkattention.bert;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** LayerNorm with and without its residual against a float64 evaluation. */
class LayerNormTest {

    @Test
    void residualAndNormMatchFloat64() {
        Random rnd = new Random(7);
        for (int E : new int[] {1, 7, 32, 384, 1000}) {
            int rows = 5;
            float[] x = new float[rows * E], r = new float[rows * E], g = new float[E], b = new float[E];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (rnd.nextGaussian() * 3 + 10);
                r[i] = (float) rnd.nextGaussian();
            }
            for (int j = 0; j < E; j++) {
                g[j] = (float) (1 + 0.3 * rnd.nextGaussian());
                b[j] = (float) rnd.nextGaussian();
            }
            for (int variant = 0; variant < 4; variant++) {
                boolean residual = variant % 2 == 1;
                EncoderMath math = variant < 2 ? new EncoderMath.Scalar() : EncoderMath.INSTANCE;
                float[] y = x.clone();
                math.layerNorm(y, residual ? r : null, rows, E, g, b, 1e-5f);
                for (int i = 0; i < rows; i++) {
                    double mean = 0, var = 0;
                    for (int j = 0; j < E; j++) {
                        mean += x[i * E + j] + (residual ? (double) r[i * E + j] : 0);
                    }
                    mean /= E;
                    for (int j = 0; j < E; j++) {
                        double d = x[i * E + j] + (residual ? (double) r[i * E + j] : 0) - mean;
                        var += d * d;
                    }
                    var /= E;
                    for (int j = 0; j < E; j++) {
                        double v = x[i * E + j] + (residual ? (double) r[i * E + j] : 0);
                        double exact = (v - mean) / Math.sqrt(var + 1e-5) * g[j] + b[j];
                        double err = Math.abs(y[i * E + j] - exact);
                        assertTrue(err <= 2e-6 * Math.max(1, Math.abs(exact)), math.name() + " E=" + E + " row " + i + " col " + j
                            + ": " + y[i * E + j] + " vs " + exact);
                    }
                }
            }
        }
    }
}
