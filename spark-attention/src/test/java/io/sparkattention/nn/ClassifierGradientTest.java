package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static io.sparkattention.nn.ClassifierFixturesTest.assertRelative;
import static io.sparkattention.nn.ClassifierFixturesTest.slice;
import static io.sparkattention.nn.ClassifierFixturesTest.toDouble;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole classifier's gradient against float64 central differences of a plain float64
 * forward pass ({@link ReferenceClassifier}), over every pooling, causal or not, with and without
 * the residual, row weights, one-token rows and ragged lengths, on each projection kernel. The differences are exact to
 * about 1e-10, so what is measured is the float32 gradient's own error.
 */
class ClassifierGradientTest {

    /** Central-difference step: truncation error ~h² and rounding ~1e-16/h both stay below 1e-9. */
    private static final double H = 1e-5;
    private static final double TOLERANCE = 1e-5;

    /** Every case on each projection kernel: the Vector API micro-kernel (when visible) and the BLAS. */
    static Stream<Arguments> cases() {
        return Stream.of("vector", "blas").filter(ClassifierGradientTest::available).flatMap(kernel -> shapes().map(a -> {
            Object[] args = a.get().clone();
            args[0] = args[0] + " on " + kernel;
            Object[] withKernel = java.util.Arrays.copyOf(args, args.length + 1);
            withKernel[args.length] = kernel;
            return Arguments.of(withKernel);
        }));
    }

    private static boolean available(String kernel) {
        try {
            LinearKernel.named(kernel);
            return true;
        } catch (IllegalStateException noVectorApi) {
            return false;
        }
    }

    private static Stream<Arguments> shapes() {
        return Stream.of(
            Arguments.of("mean, bidirectional, residual", 8, 2, 3, false, true, Pooling.MEAN, false, new int[] {5, 1, 3}),
            Arguments.of("first, causal, residual, weighted", 8, 2, 3, true, true, Pooling.FIRST, true,
                new int[] {4, 6, 2}),
            Arguments.of("last, causal, no residual, weighted", 12, 3, 4, true, false, Pooling.LAST, true,
                new int[] {1, 7, 3, 5}),
            Arguments.of("mean, causal, no residual", 8, 1, 2, true, false, Pooling.MEAN, false, new int[] {6, 2}),
            Arguments.of("first, bidirectional, no residual", 8, 4, 3, false, false, Pooling.FIRST, false,
                new int[] {3, 5}),
            Arguments.of("last, bidirectional, residual, one long row", 4, 2, 2, false, true, Pooling.LAST, true,
                new int[] {40, 1, 9}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @DisplayName("the gradient of the weighted mean cross-entropy equals float64 finite differences within 1e-5")
    void gradientMatchesFiniteDifferences(String label, int e, int heads, int k, boolean causal, boolean residual,
                                          Pooling pooling, boolean weighted, int[] lengths, String kernel) {
        AttentionClassifierNetwork net = new AttentionClassifierNetwork(e, heads, k, causal, residual, pooling);
        RandomTensors random = new RandomTensors(e * 1000L + lengths.length);
        float[] theta = net.initialParameters(7);
        float[] noise = random.normal(theta.length, 0.1);
        for (int i = 0; i < theta.length; i++) {
            theta[i] += noise[i];  // non-zero biases everywhere
        }
        int rows = lengths.length;
        float[][] x = new float[rows][];
        int[] labels = new int[rows];
        double[] weights = new double[rows];
        for (int b = 0; b < rows; b++) {
            x[b] = random.normal(lengths[b] * e, 1.0);
            labels[b] = random.between(0, k - 1);
            weights[b] = weighted ? 0.25 + 2 * random.uniform() : 1.0;
        }

        ClassifierEvaluator step = net.bind(theta, LinearKernel.named(kernel));
        ReferenceClassifier reference = new ReferenceClassifier(net);
        double[] thetaD = toDouble(theta);
        double[] grad = new double[net.parameterCount()];
        double loss = 0, total = 0;
        float[] logits = new float[k];
        for (int b = 0; b < rows; b++) {
            loss += step.accumulate(x[b], lengths[b], labels[b], weights[b], grad);
            total += weights[b];
            step.logits(x[b], lengths[b], logits);
            assertRelative(label + " row " + b + " logits", reference.logits(thetaD, x[b], lengths[b]),
                toDouble(logits), TOLERANCE);
        }
        for (int i = 0; i < grad.length; i++) {
            grad[i] /= total;
        }
        double referenceLoss = batchLoss(reference, thetaD, x, lengths, labels, weights);
        assertEquals(referenceLoss, loss / total, 1e-6 * referenceLoss, label + " loss");

        double[] numeric = new double[grad.length];
        for (int i = 0; i < grad.length; i++) {
            double saved = thetaD[i];
            thetaD[i] = saved + H;
            double up = batchLoss(reference, thetaD, x, lengths, labels, weights);
            thetaD[i] = saved - H;
            double down = batchLoss(reference, thetaD, x, lengths, labels, weights);
            thetaD[i] = saved;
            numeric[i] = (up - down) / (2 * H);
        }
        for (ParameterTensor t : net.parameters()) {
            if (t.name().equals(AttentionClassifierNetwork.IN_PROJ_BIAS)) {
                assertRelative(label + " query bias", slice(numeric, t.offset(), e), slice(grad, t.offset(), e),
                    TOLERANCE);
                assertRelative(label + " value bias", slice(numeric, t.offset() + 2 * e, e),
                    slice(grad, t.offset() + 2 * e, e), TOLERANCE);
                // The key bias's gradient is 0 exactly: both sides are rounding noise.
                assertTrue(norm(slice(grad, t.offset() + e, e)) <= TOLERANCE * norm(grad), label + " key bias");
                assertTrue(norm(slice(numeric, t.offset() + e, e)) <= TOLERANCE * norm(numeric), label + " key bias (numeric)");
            } else {
                assertRelative(label + " " + t.name(), slice(numeric, t.offset(), t.size()),
                    slice(grad, t.offset(), t.size()), TOLERANCE);
            }
        }
    }

    private static double batchLoss(ReferenceClassifier reference, double[] theta, float[][] x, int[] lengths,
                                    int[] labels, double[] weights) {
        double loss = 0, total = 0;
        for (int b = 0; b < x.length; b++) {
            loss += weights[b] * reference.loss(theta, x[b], lengths[b], labels[b]);
            total += weights[b];
        }
        return loss / total;
    }

    private static double norm(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v * v;
        }
        return Math.sqrt(s);
    }
}
