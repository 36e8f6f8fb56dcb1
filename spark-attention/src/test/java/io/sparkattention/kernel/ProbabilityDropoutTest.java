package io.sparkattention.kernel;

import io.sparkattention.testing.HashedDropout;
import io.sparkattention.testing.NaiveAttention;
import io.sparkattention.testing.NaiveAttentionGrad;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static io.sparkattention.testing.NaiveAttentionGrad.widen;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dropout on the attention probabilities ({@link ProbabilityDropout}) on the direct path (both
 * arithmetics) and the tiled path (every tile implementation): output and gradients against the
 * float64 reference with the same factors on the tiled tests' random shapes, blocks and masks (L ≠ S,
 * grouped heads, causal, window, padding, boolean masks, biases with −∞, fully masked rows, L or S
 * of 0 and 1, large logits); the reference's gradients against its own central differences; the
 * log-sum-exp and the weights undropped; a dropout that keeps everything giving the bits of none.
 */
class ProbabilityDropoutTest {

    /** A kernel's output, log-sum-exp and gradients of one call with dropout. */
    record Run(float[] out, float[] lse, float[] dq, float[] dk, float[] dv, float[] dBias) {
        static Run of(FlashAttention kernel, AttentionShape s, float[] q, float[] k, float[] v, RowMask mask,
                      float[] dOut, ProbabilityDropout dropout) {
            int H = s.numHeads(), Hkv = s.numKvHeads();
            Workspace ws = new Workspace();
            float[] out = new float[s.outputSize()], lse = new float[H * s.queryLength()];
            MatrixView qv = MatrixView.dense(q, H * s.headDim()), kv = MatrixView.dense(k, Hkv * s.headDim());
            MatrixView vv = MatrixView.dense(v, Hkv * s.valueDim()), ov = MatrixView.dense(out, H * s.valueDim());
            kernel.forward(s, qv, kv, vv, mask, ov, lse, 0, dropout, ws);
            float[] dq = new float[s.querySize()], dk = new float[s.keySize()], dv = new float[s.valueSize()];
            float[] dBias = mask.bias() == null ? null : new float[mask.bias().length];
            kernel.backward(s, qv, kv, vv, mask, ov, lse, 0, MatrixView.dense(dOut, H * s.valueDim()),
                MatrixView.dense(dq, H * s.headDim()), MatrixView.dense(dk, Hkv * s.headDim()),
                MatrixView.dense(dv, Hkv * s.valueDim()), dBias, dropout, ws);
            return new Run(out, lse, dq, dk, dv, dBias);
        }
    }

    /** Every kernel under test: the direct path on each arithmetic, the tiled path on each tile implementation. */
    static List<Arguments> kernels(AttentionSpec spec) {
        List<Arguments> all = new ArrayList<>();
        for (DirectAttention.Impl impl : DirectPathTest.arithmetics()) {
            all.add(Arguments.of("direct " + impl.name(), DirectPathTest.direct(spec, impl)));
        }
        for (TileOps ops : TileOpsImplementations.all()) {
            all.add(Arguments.of("tiled " + ops.name(), new FlashAttention(spec, ops)));
        }
        return all;
    }

    static Stream<Arguments> randomCases() {
        List<Arguments> args = new ArrayList<>();
        IntStream.range(0, 60).forEach(seed -> {
            AttentionCase c = AttentionCase.random(seed);
            for (Arguments k : kernels(c.spec)) {
                args.add(Arguments.of(k.get()[0], k.get()[1], c, new double[] {0.1, 0.5, 0.9}[seed % 3]));
            }
        });
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {2} p={3}")
    @MethodSource("randomCases")
    @DisplayName("output and dQ, dK, dV, dBias match the float64 reference with the same factors; log-sum-exp and "
        + "weights stay the undropped softmax's")
    void matchesReference(String name, FlashAttention kernel, AttentionCase c, double p) {
        ProbabilityDropout dropout = new HashedDropout(c.label.hashCode(), p);
        float[] dOut = new RandomTensors(c.label.hashCode() + 1).normal(c.shape.outputSize(), 1);
        Run run = Run.of(kernel, c.shape, c.q, c.k, c.v, c.mask, dOut, dropout);
        NaiveAttentionGrad ref = new NaiveAttentionGrad(c.spec, c.shape, c.mask, dropout);
        double[] q = widen(c.q), k = widen(c.k), v = widen(c.v), bias = widen(c.mask.bias());
        // the output's terms: every probability kept at its factor 1/(1 − p), against |V|
        double[] absV = v.clone();
        for (int i = 0; i < absV.length; i++) {
            absV[i] = Math.abs(absV[i]);
        }
        double[] outTerms = new NaiveAttentionGrad(c.spec, c.shape, c.mask, (h, i, j) -> (float) (1 / (1 - p)))
            .output(q, k, absV, bias);
        closeUnlessCancelled(c.label + " output", ref.output(q, k, v, bias), outTerms, run.out, !c.largeLogits);
        NaiveAttention.Result undropped = NaiveAttention.forward(c.spec, c.shape, c.q, c.k, c.v, c.mask);
        assertClose(c.label + " lse", undropped.lse, run.lse);
        float[] weights = new float[c.shape.numHeads() * c.shape.queryLength() * c.shape.keyLength()];
        kernel.weights(c.shape, c.q, c.k, c.mask, run.lse, true, weights, new Workspace());
        assertClose(c.label + " weights", undropped.weights, weights);

        NaiveAttentionGrad.Gradients g = ref.backward(q, k, v, bias, widen(dOut));
        closeUnlessCancelled(c.label + ": dQ", g.query, g.queryTerms, run.dq, !c.largeLogits);
        closeUnlessCancelled(c.label + ": dK", g.key, g.keyTerms, run.dk, !c.largeLogits);
        closeUnlessCancelled(c.label + ": dV", g.value, g.valueTerms, run.dv, !c.largeLogits);
        if (g.bias != null) {
            closeUnlessCancelled(c.label + ": dBias", g.bias, g.biasTerms, run.dBias, !c.largeLogits);
        }
    }

    /**
     * Within 1e-5 of the summed terms' size, or of float32's smallest normal where the terms are
     * below what float32 holds (as {@link FlashAttentionBackwardTest#assertWithinTerms}), and within
     * the project's criterion ({@code Close}) as well when {@code close} and the terms do not cancel
     * to under a hundredth of their size. Dropout makes such cancellation common: a row whose one
     * large probability is dropped keeps only the small ones (e^−85 with large logits, 0 in
     * float32), and with a single visible key dS = P∘(dP∘M − D) is 0 up to rounding amplified by
     * 1/(1 − p).
     */
    private static void closeUnlessCancelled(String what, double[] ref, double[] terms, float[] got, boolean close) {
        double r2 = 0, t2 = 0, e2 = 0;
        for (int i = 0; i < ref.length; i++) {
            assertTrue(!Float.isNaN(got[i]), what + ": NaN at " + i);
            r2 += ref[i] * ref[i];
            t2 += terms[i] * terms[i];
            e2 += (got[i] - ref[i]) * (got[i] - ref[i]);
        }
        double error = Math.sqrt(e2), size = Math.max(Math.sqrt(t2), Float.MIN_NORMAL / 1e-5);
        assertTrue(error <= 1e-5 * size, () -> String.format("%s: error %.3g > 1e-5 of the terms' %.3g", what,
            error, size));
        if (close && r2 >= 1e-4 * t2) {
            assertClose(what, ref, got);
        }
    }

    static Stream<Arguments> everyKernel() {
        return kernels(AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT)
            .withWindow(4, AttentionSpec.UNBOUNDED).withBlocks(4, 3)).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyKernel")
    @DisplayName("the kernel's gradients with dropout agree with central differences of the float64 forward with "
        + "the same factors, every mask kind at once")
    void matchesFiniteDifferences(String name, FlashAttention kernel) {
        RandomTensors rnd = new RandomTensors(6);
        AttentionShape shape = new AttentionShape(6, 9, 4, 2, 3, 5);
        float[] biasF = rnd.normal(shape.numHeads() * 6 * 9, 1);
        RowMask mask = RowMask.keyLength(8).withAllowed(rnd.bernoulli(6 * 9, 0.8)).withBias(biasF);
        float[] qF = rnd.normal(shape.querySize(), 1), kF = rnd.normal(shape.keySize(), 1);
        float[] vF = rnd.normal(shape.valueSize(), 1), dOutF = rnd.normal(shape.outputSize(), 1);
        ProbabilityDropout dropout = new HashedDropout(17, 0.3);
        Run run = Run.of(kernel, shape, qF, kF, vF, mask, dOutF, dropout);

        NaiveAttentionGrad ref = new NaiveAttentionGrad(kernel.spec(), shape, mask, dropout);
        double[] q = widen(qF), k = widen(kF), v = widen(vF), bias = widen(biasF), dOut = widen(dOutF);
        double[][] inputs = {q, k, v, bias};
        float[][] grads = {run.dq, run.dk, run.dv, run.dBias};
        String[] names = {"dQ", "dK", "dV", "dBias"};
        for (int a = 0; a < inputs.length; a++) {
            double[] x = inputs[a], numeric = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                double keep = x[i], eps = 1e-6;
                x[i] = keep + eps;
                double up = dot(dOut, ref.output(q, k, v, bias));
                x[i] = keep - eps;
                double down = dot(dOut, ref.output(q, k, v, bias));
                x[i] = keep;
                numeric[i] = (up - down) / (2 * eps);
            }
            assertClose(name + " " + names[a] + " against central differences", numeric, grads[a]);
        }
    }

    static Stream<Arguments> bitwiseCases() {
        List<Arguments> args = new ArrayList<>();
        IntStream.range(0, 30).forEach(seed -> {
            AttentionCase c = AttentionCase.random(1000 + seed);
            for (Arguments k : kernels(c.spec)) {
                args.add(Arguments.of(k.get()[0], k.get()[1], c));
            }
        });
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("bitwiseCases")
    @DisplayName("a dropout that keeps everything (p = 0) gives the bits of no dropout, forward and backward")
    void keepingEverythingIsNoDropout(String name, FlashAttention kernel, AttentionCase c) {
        float[] dOut = new RandomTensors(c.label.hashCode()).normal(c.shape.outputSize(), 1);
        Run none = Run.of(kernel, c.shape, c.q, c.k, c.v, c.mask, dOut, null);
        Run keepAll = Run.of(kernel, c.shape, c.q, c.k, c.v, c.mask, dOut, new HashedDropout(3, 0.0));
        assertArrayEquals(none.out, keepAll.out, c.label + " output");
        assertArrayEquals(none.lse, keepAll.lse, c.label + " lse");
        assertArrayEquals(none.dq, keepAll.dq, c.label + " dQ");
        assertArrayEquals(none.dk, keepAll.dk, c.label + " dK");
        assertArrayEquals(none.dv, keepAll.dv, c.label + " dV");
        assertArrayEquals(none.dBias, keepAll.dBias, c.label + " dBias");
        // and the array entry point (no dropout) is the views' call with null
        float[] out = new float[c.shape.outputSize()], lse = new float[c.shape.numHeads() * c.shape.queryLength()];
        kernel.forward(c.shape, c.q, c.k, c.v, c.mask, out, lse, new Workspace());
        assertArrayEquals(none.out, out, c.label + " output of the array call");
    }

    @Test
    @DisplayName("the test's dropout drops at its rate, so the cases above exercise dropped and kept elements")
    void testDropoutHasItsRate() {
        for (double p : new double[] {0.1, 0.5, 0.9}) {
            HashedDropout d = new HashedDropout(11, p);
            int dropped = 0, n = 4 * 300 * 300;
            for (int h = 0; h < 4; h++) {
                for (int i = 0; i < 300; i++) {
                    for (int j = 0; j < 300; j++) {
                        float f = d.factor(h, i, j);
                        assertTrue(f == 0f || f == (float) (1 / (1 - p)));
                        dropped += f == 0f ? 1 : 0;
                    }
                }
            }
            assertEquals(p, dropped / (double) n, 4 * Math.sqrt(p * (1 - p) / n), "drop rate at p = " + p);
        }
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }
}
