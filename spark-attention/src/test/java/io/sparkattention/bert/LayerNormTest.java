package io.sparkattention.bert;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LayerNorm with and without its residual against a float64 evaluation, on both paths (one
 * accumulation rule: they agree within a float32 ulp of each other), and its backward pass
 * against finite differences of the float64 evaluation.
 */
class LayerNormTest {

    @Test
    void bothPathsMatchFloat64AndEachOther() {
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
            for (boolean residual : new boolean[] {false, true}) {
                float[] scalar = x.clone(), vector = x.clone();
                new EncoderMath.Scalar().layerNorm(scalar, residual ? r : null, rows, E, g, b, 1e-5f);
                EncoderMath.INSTANCE.layerNorm(vector, residual ? r : null, rows, E, g, b, 1e-5f);
                for (int i = 0; i < rows; i++) {
                    double[] exact = exact(x, residual ? r : null, i, E, g, b, 1e-5);
                    for (int j = 0; j < E; j++) {
                        double tol = 2e-7 * Math.max(1, Math.abs(exact[j]));
                        assertTrue(Math.abs(scalar[i * E + j] - exact[j]) <= tol, "scalar E=" + E + " row " + i
                            + " col " + j + ": " + scalar[i * E + j] + " vs " + exact[j]);
                        assertTrue(Math.abs(vector[i * E + j] - exact[j]) <= tol, EncoderMath.INSTANCE.name() + " E="
                            + E + " row " + i + " col " + j + ": " + vector[i * E + j] + " vs " + exact[j]);
                        assertTrue(Math.abs(vector[i * E + j] - scalar[i * E + j])
                            <= Math.ulp(Math.abs(scalar[i * E + j])), "paths differ at E=" + E + " row " + i);
                    }
                }
            }
        }
    }

    @Test
    void theBackwardMatchesFiniteDifferences() {
        Random rnd = new Random(3);
        for (int E : new int[] {1, 5, 48}) {
            int rows = 3;
            float[] x = new float[rows * E], g = new float[E], b = new float[E], dy = new float[rows * E];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (rnd.nextGaussian() * 2);
                dy[i] = (float) rnd.nextGaussian();
            }
            for (int j = 0; j < E; j++) {
                g[j] = (float) (1 + 0.3 * rnd.nextGaussian());
                b[j] = (float) rnd.nextGaussian();
            }
            float[] y = x.clone(), xhat = new float[rows * E], rstd = new float[rows], dx = new float[rows * E];
            float[] grad = new float[2 * E];
            LayerNorm.forward(y, null, rows, E, g, b, 1e-5f, xhat, rstd);
            LayerNorm.backward(dy, xhat, rstd, rows, E, g, dx, grad, 0, E);
            for (int i = 0; i < rows * E; i++) {
                double h = 1e-4;
                float[] up = x.clone(), down = x.clone();
                up[i] += (float) h;
                down[i] -= (float) h;
                double realH = ((double) up[i] - down[i]) / 2;
                double fd = (dot(dy, up, rows, E, g, b) - dot(dy, down, rows, E, g, b)) / (2 * realH);
                assertTrue(Math.abs(dx[i] - fd) <= 1e-4 * Math.max(1, Math.abs(fd)), "E=" + E + " dx[" + i + "] = "
                    + dx[i] + " vs " + fd);
            }
            for (int j = 0; j < E; j++) {
                double dGamma = 0, dBeta = 0;
                for (int i = 0; i < rows; i++) {
                    double[] e = exact(x, null, i, E, ones(E), new float[E], 1e-5);
                    dGamma += dy[i * E + j] * e[j];
                    dBeta += dy[i * E + j];
                }
                assertTrue(Math.abs(grad[j] - dGamma) <= 1e-5 * Math.max(1, Math.abs(dGamma)), "dγ " + j);
                assertTrue(Math.abs(grad[E + j] - dBeta) <= 1e-5 * Math.max(1, Math.abs(dBeta)), "dβ " + j);
            }
        }
    }

    private static float[] ones(int E) {
        float[] o = new float[E];
        java.util.Arrays.fill(o, 1f);
        return o;
    }

    /** Σ dy∘LN(x) in float64. */
    private static double dot(float[] dy, float[] x, int rows, int E, float[] g, float[] b) {
        double s = 0;
        for (int i = 0; i < rows; i++) {
            double[] e = exact(x, null, i, E, g, b, 1e-5);
            for (int j = 0; j < E; j++) {
                s += dy[i * E + j] * e[j];
            }
        }
        return s;
    }

    private static double[] exact(float[] x, float[] r, int i, int E, float[] g, float[] b, double eps) {
        double mean = 0, var = 0;
        double[] v = new double[E], out = new double[E];
        for (int j = 0; j < E; j++) {
            v[j] = r != null ? (double) (x[i * E + j] + r[i * E + j]) : x[i * E + j];
            mean += v[j];
        }
        mean /= E;
        for (int j = 0; j < E; j++) {
            var += (v[j] - mean) * (v[j] - mean);
        }
        var /= E;
        for (int j = 0; j < E; j++) {
            out[j] = (v[j] - mean) / Math.sqrt(var + eps) * g[j] + b[j];
        }
        return out;
    }
}
