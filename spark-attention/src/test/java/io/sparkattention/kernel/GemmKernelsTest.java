package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Every projection kernel against one float64 reference of {@code y = x·Wᵀ + b}. */
class GemmKernelsTest {

    /** Sizes at and around the micro-kernel's rows (6), vector widths (8, 16), panels (16, 32, 64). */
    private static final int[] AWKWARD = {0, 1, 3, 17, 63, 64, 65, 127, 129};

    /** Unit roundoff of float32. */
    private static final double EPS = 0x1p-24;

    static Stream<Arguments> everyImplementation() {
        List<LinearKernel> all = new ArrayList<>();
        all.add(LinearKernel.named("blas"));
        LinearKernel vector = GemmChoice.vectorKernel();
        if (vector != null) {
            all.add(vector);
        }
        return all.stream().map(k -> Arguments.of(k.name(), k));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("every m, n, k in {0, 1, 3, 17, 63, 64, 65, 127, 129}, with and without bias, is within float32's "
        + "summation bound of the float64 reference")
    void awkwardShapes(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(23);
        for (int m : AWKWARD) {
            for (int n : AWKWARD) {
                for (int k : AWKWARD) {
                    check(kernel, rnd, m, n, k, (m + n + k) % 2 == 0);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("projection shapes and shapes across several depth and width blocks (k > 256, n > 512) match "
        + "the reference")
    void largeShapes(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(29);
        int[][] shapes = {{128, 768, 768}, {100, 64, 64}, {7, 1000, 520}, {130, 513, 257}, {1, 768, 769},
            {13, 1025, 3}, {5, 3, 1100}};
        for (int[] s : shapes) {
            check(kernel, rnd, s[0], s[1], s[2], true);
            check(kernel, rnd, s[0], s[1], s[2], false);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("a prepared weight gives the same bits on every call and leaves its inputs unchanged")
    void preparedWeightIsReusable(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(31);
        int m = 20, n = 70, k = 33;
        float[] x = rnd.normal(m * k, 1), w = rnd.normal(n * k, 0.2), b = rnd.normal(n, 1);
        float[] x0 = x.clone(), w0 = w.clone(), b0 = b.clone();
        LinearWeight weight = LinearWeight.of(kernel, w, n, k, b);
        float[] first = weight.apply(x, m);
        assertArrayEquals(first, weight.apply(x, m));
        assertArrayEquals(x0, x);
        assertArrayEquals(w0, w);
        assertArrayEquals(b0, b);
        assertEquals(n, weight.out());
        assertEquals(k, weight.in());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("the backward products: dx = dy·W on the prepared transpose and dW += dyᵀ·x, on awkward and "
        + "projection shapes, are within float32's summation bound of the float64 reference")
    void backwardProducts(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(41);
        WeightGradient gradient = new WeightGradient(kernel);
        for (int m : AWKWARD) {
            for (int in : AWKWARD) {
                for (int out : AWKWARD) {
                    if ((m + in + out) % 3 == 0) {
                        checkBackward(kernel, gradient, rnd, m, in, out);
                    }
                }
            }
        }
        int[][] shapes = {{128, 768, 768}, {100, 64, 64}, {300, 520, 33}, {7, 1000, 3}, {257, 65, 513}};
        for (int[] s : shapes) {
            checkBackward(kernel, gradient, rnd, s[0], s[1], s[2]);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("the weight gradient of a column block of a wider dy, read in place, has the bits of the block "
        + "copied out (checked against float64 above); a view that does not fit is refused")
    void stridedWeightGradient(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(47);
        WeightGradient gradient = new WeightGradient(kernel);
        int[][] shapes = {{1, 5, 3, 2, 9}, {17, 64, 64, 64, 192}, {65, 33, 17, 40, 129}, {129, 384, 384, 768, 1152},
            {3, 7, 1, 0, 1}, {0, 4, 4, 4, 12}};
        for (int[] sh : shapes) {
            int m = sh[0], in = sh[1], out = sh[2], col = sh[3], ld = sh[4];
            String shape = name + " m=" + m + " in=" + in + " out=" + out + " col=" + col + " ld=" + ld;
            float[] wide = rnd.normal(m * ld + 5, 1), x = rnd.normal(m * in, 1);
            float[] block = new float[m * out];
            for (int i = 0; i < m; i++) {
                System.arraycopy(wide, col + i * ld, block, i * out, out);
            }
            float[] start = rnd.normal(2 + out * in, 1);
            float[] copied = start.clone(), strided = start.clone();
            gradient.accumulate(m, in, out, block, x, copied, 2);
            gradient.accumulate(m, in, out, wide, col, ld, x, strided, 2);
            assertArrayEquals(copied, strided, shape);
        }
        float[] dw = new float[12];
        IllegalArgumentException narrow = assertThrows(IllegalArgumentException.class,
            () -> gradient.accumulate(2, 3, 4, new float[20], 0, 3, new float[6], dw, 0));
        assertTrue(narrow.getMessage().contains("dy"), narrow.getMessage());
        IllegalArgumentException outside = assertThrows(IllegalArgumentException.class,
            () -> gradient.accumulate(2, 3, 4, new float[12], 5, 6, new float[6], dw, 0));
        assertTrue(outside.getMessage().contains("dy"), outside.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("a prepared weight's apply into a reused buffer overwrites exactly m rows with the allocating "
        + "apply's bits")
    void applyIntoBuffer(String name, LinearKernel kernel) {
        RandomTensors rnd = new RandomTensors(43);
        int m = 13, n = 40, k = 70;
        float[] x = rnd.normal(m * k, 1), w = rnd.normal(n * k, 0.2), b = rnd.normal(n, 1);
        for (float[] bias : new float[][] {b, null}) {
            LinearWeight weight = LinearWeight.of(kernel, w, n, k, bias);
            float[] y = rnd.normal((m + 2) * n, 100);
            float[] tail = java.util.Arrays.copyOfRange(y, m * n, y.length);
            weight.apply(x, m, y);
            assertArrayEquals(weight.apply(x, m), java.util.Arrays.copyOf(y, m * n));
            assertArrayEquals(tail, java.util.Arrays.copyOfRange(y, m * n, y.length));
        }
    }

    @Test
    @DisplayName("the vector kernel blocks 6 rows on 16-lane vectors (AVX-512's 32 registers) and 4 on narrower ones "
        + "(AVX2's 16), and names its block")
    void vectorBlockFitsTheRegisters() {
        LinearKernel vector = GemmChoice.vectorKernel();
        org.junit.jupiter.api.Assumptions.assumeTrue(vector != null, "the Vector API is not visible");
        int lanes = jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length();
        assertEquals(lanes >= 16 ? 6 : 4, VectorLinearKernel.ROWS);
        assertEquals("vector:" + lanes * 32 + "-bit:" + VectorLinearKernel.ROWS + "x" + 2 * lanes, vector.name());
    }

    @Test
    @DisplayName("the vector kernel's weight gradient adds to each dW element, depth block by depth block, the "
        + "block's products fused-multiply-added from zero in row order: exact bits on shapes across row, panel, "
        + "depth, width and height blocks, dy a strided view")
    void vectorWeightGradientSumsInRowOrder() {
        LinearKernel vector = GemmChoice.vectorKernel();
        org.junit.jupiter.api.Assumptions.assumeTrue(vector != null, "the Vector API is not visible");
        RandomTensors rnd = new RandomTensors(53);
        WeightGradient gradient = new WeightGradient(vector);
        int depth = VectorLinearKernel.DEPTH_BLOCK;
        // m, in, out, dy's leading dimension
        int[][] shapes = {{1, 1, 1, 1}, {7, 33, 13, 13}, {depth + 3, 520, 7, 9}, {2 * depth, 64, 130, 200},
            {600, 1030, 25, 25}, {depth + 1, 40, VectorWeightGradient.HEIGHT_BLOCK + 4, VectorWeightGradient.HEIGHT_BLOCK + 6}};
        for (int[] s : shapes) {
            int m = s[0], in = s[1], out = s[2], ld = s[3];
            float[] dy = rnd.normal(m * ld, 1), x = rnd.normal(m * in, 1), dw = rnd.normal(out * in, 1);
            float[] expected = dw.clone();
            for (int o = 0; o < out; o++) {
                for (int c = 0; c < in; c++) {
                    for (int p0 = 0; p0 < m; p0 += depth) {
                        float sum = 0f;
                        for (int t = p0; t < Math.min(m, p0 + depth); t++) {
                            sum = Math.fma(dy[t * ld + o], x[t * in + c], sum);
                        }
                        expected[o * in + c] += sum;
                    }
                }
            }
            gradient.accumulate(m, in, out, dy, 0, ld, x, dw, 0);
            assertArrayEquals(expected, dw, "m=" + m + " in=" + in + " out=" + out + " ld=" + ld);
        }
    }

    @Test
    @DisplayName("Gemm.linear runs on the JVM's projection kernel and agrees with the reference")
    void linearUsesTheChosenKernel() {
        RandomTensors rnd = new RandomTensors(37);
        int m = 50, n = 96, k = 80;
        float[] x = rnd.normal(m * k, 1), w = rnd.normal(n * k, 0.1), b = rnd.normal(n, 1);
        float[] y = Gemm.linear(x, m, k, w, n, b);
        assertArrayEquals(LinearWeight.of(LinearKernel.get(), w, n, k, b).apply(x, m), y);
        assertClose("linear", reference(x, m, k, w, n, b), y);
    }

    @Test
    @DisplayName("a weight or bias of the wrong size, an input shorter than m rows or an output too large for an "
        + "array is an error naming it")
    void badArguments() {
        float[] w = new float[12];
        assertMessage("weight has 12 values, expected 5×3",
            () -> LinearWeight.of(w, 5, 3, null));
        assertMessage("bias has 2 values, expected 4",
            () -> LinearWeight.of(w, 4, 3, new float[2]));
        assertMessage("x: view 3×3 (ld 3) at offset 0 does not fit in 8 values",
            () -> LinearWeight.of(w, 4, 3, null).apply(new float[8], 3));
        assertMessage("x: negative shape -1×3", () -> LinearWeight.of(w, 4, 3, null).apply(new float[8], -1));
        assertMessage("weight has 12 values, expected 4×4", () -> Gemm.linear(new float[4], 1, 4, w, 4, null));
        assertMessage("output 1000000×100000 does not fit in one array",
            () -> LinearWeight.of(new float[100_000], 100_000, 1, null).apply(new float[1_000_000], 1_000_000));
    }

    private static void assertMessage(String expected, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    private static void check(LinearKernel kernel, RandomTensors rnd, int m, int n, int k, boolean withBias) {
        float[] x = rnd.normal(m * k, 1), w = rnd.normal(n * k, 1);
        float[] b = withBias ? rnd.normal(n, 1) : null;
        float[] y = LinearWeight.of(kernel, w, n, k, b).apply(x, m);
        String shape = kernel.name() + " m=" + m + " n=" + n + " k=" + k + (withBias ? " with bias" : "");
        assertEquals(m * n, y.length, shape + ": length");
        double[] ref = reference(x, m, k, w, n, b);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                // Float32 sums of k products and the bias are within (k + 2)·eps·Σ|terms| (Higham's γ).
                double magnitude = b != null ? Math.abs(b[j]) : 0;
                for (int t = 0; t < k; t++) {
                    magnitude += Math.abs((double) x[i * k + t] * w[j * k + t]);
                }
                double bound = (k + 2) * EPS * magnitude + Float.MIN_NORMAL;
                double err = Math.abs(y[i * n + j] - ref[i * n + j]);
                if (!(err <= bound)) {
                    fail(shape + ": y[" + i + "," + j + "] = " + y[i * n + j] + ", reference " + ref[i * n + j]
                        + ", error " + err + " > " + bound);
                }
            }
        }
    }

    /**
     * dx = dy·W through {@link LinearWeight#transposeOf} and dW += dyᵀ·x through {@link WeightGradient}
     * into a block at an offset of a larger array holding earlier sums, against float64 loops.
     */
    private static void checkBackward(LinearKernel kernel, WeightGradient gradient, RandomTensors rnd, int m, int in,
                                      int out) {
        String shape = kernel.name() + " m=" + m + " in=" + in + " out=" + out;
        float[] x = rnd.normal(m * in, 1), w = rnd.normal(out * in, 1), dy = rnd.normal(m * out, 1);
        float[] dx = LinearWeight.transposeOf(kernel, w, out, in).apply(dy, m);
        assertEquals(m * in, dx.length, shape + ": dx length");
        for (int i = 0; i < m; i++) {
            for (int c = 0; c < in; c++) {
                double sum = 0, magnitude = 0;
                for (int o = 0; o < out; o++) {
                    double p = (double) dy[i * out + o] * w[o * in + c];
                    sum += p;
                    magnitude += Math.abs(p);
                }
                assertWithin(shape + ": dx[" + i + "," + c + "]", sum, dx[i * in + c], (out + 2) * EPS * magnitude);
            }
        }
        int off = 3;
        float[] dw = rnd.normal(off + out * in + 2, 1);
        float[] before = dw.clone();
        gradient.accumulate(m, in, out, dy, x, dw, off);
        for (int o = 0; o < out; o++) {
            for (int c = 0; c < in; c++) {
                double sum = before[off + o * in + c], magnitude = Math.abs(sum);
                for (int r = 0; r < m; r++) {
                    double p = (double) dy[r * out + o] * x[r * in + c];
                    sum += p;
                    magnitude += Math.abs(p);
                }
                assertWithin(shape + ": dW[" + o + "," + c + "]", sum, dw[off + o * in + c],
                    (m + 2) * EPS * magnitude);
            }
        }
        for (int i : new int[] {0, 1, 2, off + out * in, off + out * in + 1}) {
            assertEquals(before[i], dw[i], shape + ": dw[" + i + "] outside the block is untouched");
        }
    }

    private static void assertWithin(String what, double expected, float actual, double bound) {
        double err = Math.abs(actual - expected);
        if (!(err <= bound + Float.MIN_NORMAL)) {
            fail(what + " = " + actual + ", reference " + expected + ", error " + err + " > " + bound);
        }
    }

    /** {@code y[i, j] = b[j] + Σₜ x[i, t]·w[j, t]} in float64. */
    static double[] reference(float[] x, int m, int k, float[] w, int n, float[] b) {
        double[] y = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double sum = b != null ? b[j] : 0;
                for (int t = 0; t < k; t++) {
                    sum += (double) x[i * k + t] * w[j * k + t];
                }
                y[i * n + j] = sum;
            }
        }
        return y;
    }
}
