package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The classifiers' one head: pooling, linear, cross-entropy, against a float64 reference of the
 * same formulas, with the gradients against central differences of the float64 loss.
 */
class ClassifierHeadTest {

    private static final int L = 4;
    private static final int E = 5;
    private static final int K = 3;
    /** The head's tensors sit after 7 other parameters, as in a network's flat vector. */
    private static final ParameterTensor W = ParameterTensor.of("classifier.weight", 7, K, E);
    private static final ParameterTensor B = ParameterTensor.of("classifier.bias", 7 + K * E, K);

    private static float[] random(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (2 * r.nextDouble() - 1);
        }
        return v;
    }

    /** weight·CE of the states h under theta, all in float64 (mean pooling). */
    private static double reference(double[] theta, double[] h, int label, double weight) {
        double[] z = new double[K];
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < K; k++) {
            z[k] = theta[B.offset() + k];
            for (int j = 0; j < E; j++) {
                double pooled = 0;
                for (int t = 0; t < L; t++) {
                    pooled += h[t * E + j];
                }
                z[k] += theta[W.offset() + k * E + j] * pooled / L;
            }
            max = Math.max(max, z[k]);
        }
        double sum = 0;
        for (double v : z) {
            sum += Math.exp(v - max);
        }
        return weight * (max + Math.log(sum) - z[label]);
    }

    private static double[] widen(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }

    @Test
    @DisplayName("loss, parameter gradients and the states' gradient match float64 and its central differences")
    void matchesFloat64() {
        float[] theta = random(7 + K * E + K + 2, 1);
        float[] h = random(L * E, 2);
        int label = 2;
        double weight = 0.75;
        ClassifierHead head = new ClassifierHead(Pooling.MEAN, theta, W, B);
        float[] pooled = new float[E];
        float[] z = new float[K];
        float[] dz = new float[K];
        head.pool(h, L, pooled);
        head.logits(pooled, z);
        double loss = weight * head.lossAndGradient(z, label, weight, dz);
        float[] grad = new float[theta.length];
        head.addParameterGradient(dz, pooled, grad);
        float[] dPooled = new float[E];
        float[] dh = new float[L * E];
        head.pooledGradient(dz, dPooled);
        head.unpool(dPooled, L, dh);

        double[] t = widen(theta);
        double[] x = widen(h);
        assertEquals(reference(t, x, label, weight), loss, 1e-6);
        DoubleSupplier f = () -> reference(t, x, label, weight);
        for (int i = 0; i < theta.length; i++) {
            assertEquals(centralDifference(t, i, f), grad[i], 1e-6, "parameter " + i);
        }
        for (int i = 0; i < h.length; i++) {
            assertEquals(centralDifference(x, i, f), dh[i], 1e-6, "state " + i);
        }
    }

    /** (f(v + ε·e_i) − f(v − ε·e_i)) / 2ε, v left as it was. */
    private static double centralDifference(double[] v, int i, DoubleSupplier f) {
        double eps = 1e-6, keep = v[i];
        v[i] = keep + eps;
        double up = f.getAsDouble();
        v[i] = keep - eps;
        double down = f.getAsDouble();
        v[i] = keep;
        return (up - down) / (2 * eps);
    }

    @Test
    @DisplayName("tensors that are not [K, E] and [K], or lie past the vector, are refused")
    void checksTheTensors() {
        float[] theta = new float[7 + K * E + K];
        assertThrows(IllegalArgumentException.class,
            () -> new ClassifierHead(Pooling.MEAN, theta, W, ParameterTensor.of("classifier.bias", 0, K + 1)));
        assertThrows(IllegalArgumentException.class,
            () -> new ClassifierHead(Pooling.MEAN, new float[K * E], W, B));
    }
}
