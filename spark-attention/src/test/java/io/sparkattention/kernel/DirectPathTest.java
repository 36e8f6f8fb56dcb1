package io.sparkattention.kernel;

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

import static io.sparkattention.kernel.SdpaGradFixture.interleave;
import static io.sparkattention.kernel.SdpaGradFixture.separate;
import static io.sparkattention.testing.Close.assertClose;
import static io.sparkattention.testing.NaiveAttentionGrad.widen;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct path ({@link DirectAttention}, {@link DirectBackward}) through {@link FlashAttention}'s
 * entry points, on both arithmetics: the float64 reference on the tiled tests' random shapes and
 * masks (L ≠ S, grouped heads, causal either way, window, key padding, boolean masks, biases L×S and
 * H×L×S with −∞, fully masked rows, L or S of 0 and 1, large logits), PyTorch's autograd fixtures,
 * agreement with the tiled path, and strided views equal to dense arrays bit for bit.
 */
class DirectPathTest {

    private static final java.util.concurrent.ForkJoinPool POOL = new java.util.concurrent.ForkJoinPool(3);

    static List<DirectAttention.Impl> arithmetics() {
        List<DirectAttention.Impl> all = new ArrayList<>();
        all.add(new ScalarDirectAttention());
        DirectAttention.Impl vector = ImplementationChoice.vectorInstance(
            "io.sparkattention.kernel.VectorDirectAttention", DirectAttention.Impl.class);
        if (vector != null) {
            all.add(vector);
        }
        return all;
    }

    static FlashAttention direct(AttentionSpec spec, DirectAttention.Impl impl) {
        return new FlashAttention(spec, TileOps.get(), AttentionPath.DIRECT).withDirectArithmetic(impl);
    }

    static Stream<Arguments> randomCases() {
        List<Arguments> args = new ArrayList<>();
        for (DirectAttention.Impl impl : arithmetics()) {
            IntStream.range(0, 150).forEach(seed -> args.add(Arguments.of(impl.name(), impl,
                AttentionCase.random(seed))));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("randomCases")
    @DisplayName("output, log-sum-exp, weights and gradients match the float64 reference; the tiled path agrees")
    void matchesReference(String name, DirectAttention.Impl impl, AttentionCase c) {
        FlashAttention kernel = direct(c.spec, impl);
        assertTrue(kernel.direct(c.shape));
        NaiveAttention.Result ref = NaiveAttention.forward(c.spec, c.shape, c.q, c.k, c.v, c.mask);
        Workspace ws = new Workspace();
        float[] out = new float[c.shape.outputSize()];
        float[] lse = new float[c.shape.numHeads() * c.shape.queryLength()];
        kernel.forward(c.shape, c.q, c.k, c.v, c.mask, out, lse, ws);
        assertClose(c.label + " output", ref.out, out);
        assertClose(c.label + " lse", ref.lse, lse);
        int plane = c.shape.queryLength() * c.shape.keyLength();
        float[] perHead = new float[c.shape.numHeads() * plane];
        kernel.weights(c.shape, c.q, c.k, c.mask, lse, true, perHead, ws);
        assertClose(c.label + " per-head weights", ref.weights, perHead);
        float[] averaged = new float[plane];
        kernel.weights(c.shape, c.q, c.k, c.mask, lse, false, averaged, ws);
        assertClose(c.label + " averaged weights", ref.averagedWeights(c.shape.numHeads()), averaged);

        float[] pooled = new float[out.length], pooledLse = new float[lse.length];
        kernel.forward(c.shape, c.q, c.k, c.v, c.mask, pooled, pooledLse, POOL);
        assertArrayEquals(out, pooled, c.label + " heads on a pool, bit for bit");
        assertArrayEquals(lse, pooledLse, c.label + " lse on a pool, bit for bit");

        float[] tiledOut = new float[out.length];
        new FlashAttention(c.spec, TileOps.get()).forward(c.shape, c.q, c.k, c.v, c.mask, tiledOut, null, ws);
        assertClose(c.label + " direct vs tiled", widen(tiledOut), out);

        float[] dOut = new RandomTensors(c.label.hashCode()).normal(c.shape.outputSize(), 1);
        FlashAttentionBackwardTest.Grads g = new FlashAttentionBackwardTest.Grads(kernel, c.shape, c.q, c.k, c.v,
            c.mask, dOut, true, null);
        NaiveAttentionGrad.Gradients grad = new NaiveAttentionGrad(c.spec, c.shape, c.mask)
            .backward(widen(c.q), widen(c.k), widen(c.v), widen(c.mask.bias()), widen(dOut));
        FlashAttentionBackwardTest.Grads onPool = new FlashAttentionBackwardTest.Grads(kernel, c.shape, c.q, c.k, c.v,
            c.mask, dOut, true, POOL);
        assertArrayEquals(g.dq, onPool.dq, c.label + " dQ on a pool, bit for bit");
        assertArrayEquals(g.dk, onPool.dk, c.label + " dK on a pool, bit for bit");
        assertArrayEquals(g.dv, onPool.dv, c.label + " dV on a pool, bit for bit");
        if (g.dBias != null) {
            assertArrayEquals(g.dBias, onPool.dBias, c.label + " dBias on a pool, bit for bit");
        }
        FlashAttentionBackwardTest.assertWithinTerms(c.label + ": dQ", grad.query, grad.queryTerms, g.dq);
        FlashAttentionBackwardTest.assertWithinTerms(c.label + ": dK", grad.key, grad.keyTerms, g.dk);
        FlashAttentionBackwardTest.assertWithinTerms(c.label + ": dV", grad.value, grad.valueTerms, g.dv);
        if (grad.bias != null) {
            FlashAttentionBackwardTest.assertWithinTerms(c.label + ": dBias", grad.bias, grad.biasTerms, g.dBias);
        }
        if (!c.largeLogits) {
            assertClose(c.label + ": dQ", grad.query, g.dq);
            assertClose(c.label + ": dK", grad.key, g.dk);
            assertClose(c.label + ": dV", grad.value, g.dv);
        }
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("randomCases")
    @DisplayName("q, k, v read from one fused buffer and the output and gradients written into place: the dense bits")
    void stridedViewsEqualDenseArrays(String name, DirectAttention.Impl impl, AttentionCase c) {
        for (FlashAttention kernel : new FlashAttention[] {direct(c.spec, impl), new FlashAttention(c.spec,
            TileOps.get())}) {
            AttentionShape s = c.shape;
            int L = s.queryLength(), S = s.keyLength(), qw = s.numHeads() * s.headDim();
            int kw = s.numKvHeads() * s.headDim(), vw = s.numKvHeads() * s.valueDim(), ow = s.numHeads() * s.valueDim();
            int rows = Math.max(L, S), F = 3 + qw + kw + vw, lead = 5;
            float[] fused = new RandomTensors(7).normal(lead + rows * F, 1);
            place(c.q, L, qw, fused, lead + 1, F);
            place(c.k, S, kw, fused, lead + 1 + qw, F);
            place(c.v, S, vw, fused, lead + 2 + qw + kw, F);
            MatrixView q = new MatrixView(fused, lead + 1, F), k = new MatrixView(fused, lead + 1 + qw, F);
            MatrixView v = new MatrixView(fused, lead + 2 + qw + kw, F);
            float[] out = new float[s.outputSize()], lse = new float[s.numHeads() * L];
            Workspace ws = new Workspace();
            kernel.forward(s, c.q, c.k, c.v, c.mask, out, lse, ws);
            float[] placed = new float[3 + L * (ow + 2)];
            float[] lse2 = new float[2 + lse.length];
            kernel.forward(s, q, k, v, c.mask, new MatrixView(placed, 3, ow + 2), lse2, 2, ws);
            assertArrayEquals(out, take(placed, 3, L, ow, ow + 2), c.label + " output in place");
            assertArrayEquals(lse, java.util.Arrays.copyOfRange(lse2, 2, lse2.length), c.label + " lse at an offset");

            float[] dOut = new RandomTensors(11).normal(s.outputSize(), 1);
            FlashAttentionBackwardTest.Grads g = new FlashAttentionBackwardTest.Grads(kernel, s, c.q, c.k, c.v,
                c.mask, dOut, false, null);
            float[] dFused = new float[rows * F];
            java.util.Arrays.fill(dFused, 42f);
            kernel.backward(s, q, k, v, c.mask, new MatrixView(placed, 3, ow + 2), lse2, 2, MatrixView.dense(dOut, ow),
                new MatrixView(dFused, 1, F), new MatrixView(dFused, 1 + qw, F), new MatrixView(dFused, 2 + qw + kw, F),
                null, ws);
            assertArrayEquals(g.dq, take(dFused, 1, L, qw, F), c.label + " dQ in place");
            assertArrayEquals(g.dk, take(dFused, 1 + qw, S, kw, F), c.label + " dK in place");
            assertArrayEquals(g.dv, take(dFused, 2 + qw + kw, S, vw, F), c.label + " dV in place");
            if (rows > 0) {
                assertEquals(42f, dFused[0], "columns outside the views are left alone");
            }
        }
    }

    @Test
    @DisplayName("PyTorch's float64 autograd fixtures: output, lse, dQ, dK, dV and dBias within 1e-5, both arithmetics")
    void matchesPyTorch() {
        for (DirectAttention.Impl impl : arithmetics()) {
            for (String name : SdpaGradFixture.NAMES) {
                SdpaGradFixture f = new SdpaGradFixture(name);
                FlashAttention kernel = direct(f.spec, impl);
                float[] out = new float[f.out.length], lse = new float[f.lse.length];
                float[] dq = new float[f.dq.length], dk = new float[f.dk.length], dv = new float[f.dV.length];
                float[] dBias = f.dBias == null ? null : new float[f.dBias.length];
                int n = f.callHeads(), nkv = f.callKvHeads();
                for (int p = 0; p < f.problems(); p++) {
                    int h0 = f.firstHead(p);
                    AttentionShape shape = new AttentionShape(f.L, f.S, n, nkv, f.d, f.dv);
                    FlashAttentionBackwardTest.Grads g = new FlashAttentionBackwardTest.Grads(kernel, shape,
                        interleave(f.q, h0, n, f.L, f.d), interleave(f.k, h0, nkv, f.S, f.d),
                        interleave(f.v, h0, nkv, f.S, f.dv), f.mask(p), interleave(f.dOut, h0, n, f.L, f.dv), true,
                        null);
                    separate(g.out, h0, n, f.L, f.dv, out);
                    System.arraycopy(g.lse, 0, lse, h0 * f.L, g.lse.length);
                    separate(g.dq, h0, n, f.L, f.d, dq);
                    separate(g.dk, h0, nkv, f.S, f.d, dk);
                    separate(g.dv, h0, nkv, f.S, f.dv, dv);
                    if (dBias != null) {
                        System.arraycopy(g.dBias, 0, dBias, h0 * f.L * f.S, g.dBias.length);
                    }
                }
                String what = impl.name() + " " + name;
                assertClose(what + " output", f.out, out);
                assertClose(what + " log-sum-exp", f.lse, lse);
                assertClose(what + " dQ", f.dq, dq);
                assertClose(what + " dK", f.dk, dk);
                assertClose(what + " dV", f.dV, dv);
                if (dBias != null) {
                    assertClose(what + " dBias", f.dBias, dBias);
                }
            }
        }
    }

    private static void place(float[] src, int rows, int cols, float[] dst, int off, int ld) {
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, r * cols, dst, off + r * ld, cols);
        }
    }

    private static float[] take(float[] src, int off, int rows, int cols, int ld) {
        float[] out = new float[rows * cols];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, off + r * ld, out, r * cols, cols);
        }
        return out;
    }
}
