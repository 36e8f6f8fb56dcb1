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

    /**
     * On both paths: the training forward keeps x̂ and rstd with the output's bits, and the
     * backward (dirty scratch, dx in place of dy or apart) matches finite differences of the
     * float64 evaluation; the paths agree (dγ and dβ bit for bit: per column sums in one order).
     */
    @Test
    void theBackwardMatchesFiniteDifferencesOnBothPaths() {
        Random rnd = new Random(3);
        for (int E : new int[] {1, 5, 48, 67}) {
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
            float[][] grads = new float[2][];
            float[][] dxs = new float[2][];
            EncoderMath[] paths = {new EncoderMath.Scalar(), EncoderMath.INSTANCE};
            for (int k = 0; k < 2; k++) {
                EncoderMath math = paths[k];
                String path = math.name() + " E=" + E;
                float[] y = x.clone(), plain = x.clone(), xhat = new float[rows * E], rstd = new float[rows];
                math.layerNorm(y, null, rows, E, g, b, 1e-5f, xhat, rstd);
                math.layerNorm(plain, null, rows, E, g, b, 1e-5f);
                org.junit.jupiter.api.Assertions.assertArrayEquals(plain, y, path + ": keeping x̂ changes no bit");
                double[] sums = new double[2 * E + 3];
                java.util.Arrays.fill(sums, 99.0);
                float[] grad = new float[2 * E + 1];
                grad[2 * E] = 5f;
                float[] dx = new float[rows * E];
                math.layerNormBackward(dy, xhat, rstd, rows, E, g, dx, grad, 0, E, sums);
                org.junit.jupiter.api.Assertions.assertEquals(5f, grad[2 * E], path + ": grad beyond dβ untouched");
                float[] inPlace = dy.clone();
                math.layerNormBackward(inPlace, xhat, rstd, rows, E, g, inPlace, null, 0, 0, null);
                org.junit.jupiter.api.Assertions.assertArrayEquals(dx, inPlace, path + ": dx in place of dy");
                for (int i = 0; i < rows * E; i++) {
                    double h = 1e-4;
                    float[] up = x.clone(), down = x.clone();
                    up[i] += (float) h;
                    down[i] -= (float) h;
                    double realH = ((double) up[i] - down[i]) / 2;
                    double fd = (dot(dy, up, rows, E, g, b) - dot(dy, down, rows, E, g, b)) / (2 * realH);
                    assertTrue(Math.abs(dx[i] - fd) <= 1e-4 * Math.max(1, Math.abs(fd)), path + " dx[" + i + "] = "
                        + dx[i] + " vs " + fd);
                }
                for (int j = 0; j < E; j++) {
                    double dGamma = 0, dBeta = 0;
                    for (int i = 0; i < rows; i++) {
                        double[] e = exact(x, null, i, E, ones(E), new float[E], 1e-5);
                        dGamma += dy[i * E + j] * e[j];
                        dBeta += dy[i * E + j];
                    }
                    assertTrue(Math.abs(grad[j] - dGamma) <= 1e-5 * Math.max(1, Math.abs(dGamma)), path + " dγ " + j);
                    assertTrue(Math.abs(grad[E + j] - dBeta) <= 1e-5 * Math.max(1, Math.abs(dBeta)), path + " dβ " + j);
                }
                grads[k] = grad;
                dxs[k] = dx;
            }
            org.junit.jupiter.api.Assertions.assertArrayEquals(grads[0], grads[1], "dγ, dβ: paths differ at E=" + E);
            for (int i = 0; i < rows * E; i++) {
                assertTrue(Math.abs(dxs[0][i] - dxs[1][i]) <= 4 * Math.ulp(Math.abs(dxs[0][i])) + 1e-12,
                    "dx paths differ at E=" + E + " " + i + ": " + dxs[0][i] + " vs " + dxs[1][i]);
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
