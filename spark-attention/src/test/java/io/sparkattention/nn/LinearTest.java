package io.sparkattention.nn;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static io.sparkattention.nn.ClassifierFixturesTest.assertRelative;
import static io.sparkattention.nn.ClassifierFixturesTest.toDouble;

/**
 * {@code nn.Linear}'s forward and backward products (y = x·Wᵀ + b, dx = dy·W, dW = dyᵀ·x,
 * db = Σ dy) against float64 double loops, on seeded shapes, with the weight and bias read at
 * offsets inside a larger vector as the classifier reads them.
 */
class LinearTest {

    @ParameterizedTest(name = "m={0}, in={1}, out={2}")
    @CsvSource({"1, 8, 3", "7, 5, 11", "33, 16, 16", "2, 1, 1"})
    @DisplayName("forward, input, weight and bias gradients equal the float64 products")
    void productsMatchDoubleLoops(int m, int in, int out) {
        RandomTensors random = new RandomTensors(31L * m + in + 7L * out);
        int wOff = 5, bOff = wOff + out * in + 3;
        float[] params = random.normal(bOff + out + 2, 1);
        float[] x = random.normal(m * in + in, 1);  // one row more than read
        float[] dy = random.normal(m * out, 1);

        float[] y = new float[m * out];
        Linear.forward(m, in, out, x, 0, params, wOff, params, bOff, y);
        double[] yRef = new double[m * out];
        double[] dxRef = new double[m * in];
        double[] dwRef = new double[out * in];
        double[] dbRef = new double[out];
        for (int r = 0; r < m; r++) {
            for (int o = 0; o < out; o++) {
                double s = params[bOff + o];
                for (int i = 0; i < in; i++) {
                    double w = params[wOff + o * in + i];
                    s += w * x[r * in + i];
                    dxRef[r * in + i] += (double) dy[r * out + o] * w;
                    dwRef[o * in + i] += (double) dy[r * out + o] * x[r * in + i];
                }
                yRef[r * out + o] = s;
                dbRef[o] += dy[r * out + o];
            }
        }
        assertRelative("y", yRef, toDouble(y), 1e-6);

        float[] dx = new float[m * in];
        Linear.inputGradient(m, in, out, dy, params, wOff, dx);
        assertRelative("dx", dxRef, toDouble(dx), 1e-6);

        float[] g = new float[out * in + out + 4];
        Linear.addWeightGradient(m, in, out, dy, x, 0, g, 2);
        assertRelative("dW", dwRef, toDouble(Arrays.copyOfRange(g, 2, 2 + out * in)), 1e-6);
        Linear.addBiasGradient(m, out, dy, g, 2 + out * in);
        assertRelative("db", dbRef, toDouble(Arrays.copyOfRange(g, 2 + out * in, 2 + out * in + out)), 1e-6);
    }
}
