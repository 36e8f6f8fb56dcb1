package io.sparkattention.kernel;

import io.sparkattention.testing.NaiveAttentionGrad;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.sparkattention.kernel.SdpaGradFixture.interleave;
import static io.sparkattention.kernel.SdpaGradFixture.separate;
import static io.sparkattention.testing.Close.assertClose;
import static io.sparkattention.testing.NaiveAttentionGrad.widen;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backward kernel: PyTorch's gradients on the fixtures, the float64 reference on random shapes
 * and masks, central differences, and parallel = sequential bit for bit, for every tile
 * implementation.
 */
class FlashAttentionBackwardTest {

    /** The kernel's gradients of one call, after its own forward pass. */
    static final class Grads {
        final float[] out, lse, dq, dk, dv, dBias;

        Grads(FlashAttention kernel, AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
              float[] dOut, boolean withBias, ForkJoinPool pool) {
            out = new float[shape.outputSize()];
            lse = new float[shape.numHeads() * shape.queryLength()];
            kernel.forward(shape, q, k, v, mask, out, lse, new Workspace());
            dq = new float[shape.querySize()];
            dk = new float[shape.keySize()];
            dv = new float[shape.valueSize()];
            dBias = withBias && mask.bias() != null ? new float[mask.bias().length] : null;
            if (pool == null) {
                kernel.backward(shape, q, k, v, mask, out, lse, dOut, dq, dk, dv, dBias, new Workspace());
            } else {
                kernel.backward(shape, q, k, v, mask, out, lse, dOut, dq, dk, dv, dBias, pool);
            }
        }
    }

    static Stream<Arguments> fixtureCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            for (String name : SdpaGradFixture.NAMES) {
                for (int[] blocks : new int[][] {{AttentionSpec.AUTO_BLOCK, AttentionSpec.AUTO_BLOCK}, {16, 8}}) {
                    args.add(Arguments.of(ops, name, blocks[0], blocks[1]));
                }
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1} blocks {2}x{3}")
    @MethodSource("fixtureCases")
    @DisplayName("the forward's output and log-sum-exp and the backward's dQ, dK, dV and dBias match PyTorch's float64 "
        + "autograd within 1e-5 relative per tensor")
    void matchesPyTorch(TileOps ops, String name, int queryBlock, int keyBlock) {
        SdpaGradFixture f = new SdpaGradFixture(name);
        FlashAttention kernel = new FlashAttention(f.spec.withBlocks(queryBlock, keyBlock), ops);
        float[] out = new float[f.out.length], lse = new float[f.lse.length];
        float[] dq = new float[f.dq.length], dk = new float[f.dk.length], dv = new float[f.dV.length];
        float[] dBias = f.dBias == null ? null : new float[f.dBias.length];
        int n = f.callHeads(), nkv = f.callKvHeads();
        for (int p = 0; p < f.problems(); p++) {
            int h0 = f.firstHead(p), kv0 = f.firstHead(p);  // with key lengths, problem p is key/value head p
            AttentionShape shape = new AttentionShape(f.L, f.S, n, nkv, f.d, f.dv);
            RowMask mask = f.mask(p);
            Grads g = new Grads(kernel, shape, interleave(f.q, h0, n, f.L, f.d), interleave(f.k, kv0, nkv, f.S, f.d),
                interleave(f.v, kv0, nkv, f.S, f.dv), mask, interleave(f.dOut, h0, n, f.L, f.dv), true, null);
            separate(g.out, h0, n, f.L, f.dv, out);
            System.arraycopy(g.lse, 0, lse, h0 * f.L, g.lse.length);
            separate(g.dq, h0, n, f.L, f.d, dq);
            separate(g.dk, kv0, nkv, f.S, f.d, dk);
            separate(g.dv, kv0, nkv, f.S, f.dv, dv);
            if (dBias != null) {
                System.arraycopy(g.dBias, 0, dBias, h0 * f.L * f.S, g.dBias.length);
            }
        }
        assertClose(name + " output", f.out, out);
        assertClose(name + " log-sum-exp", f.lse, lse);
        assertClose(name + " dQ", f.dq, dq);
        assertClose(name + " dK", f.dk, dk);
        assertClose(name + " dV", f.dV, dv);
        if (dBias != null) {
            assertClose(name + " dBias", f.dBias, dBias);
        }
    }

    static Stream<Arguments> randomCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            IntStream.range(0, 120).forEach(seed -> args.add(Arguments.of(ops, AttentionCase.random(seed))));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("randomCases")
    @DisplayName("dQ, dK, dV and dBias match the float64 reference on random shapes, blocks and masks, within 1e-5 "
        + "of the summed terms' size where large logits make the sums cancel")
    void matchesReference(TileOps ops, AttentionCase c) {
        float[] dOut = new RandomTensors(c.label.hashCode()).normal(c.shape.outputSize(), 1);
        Grads g = new Grads(new FlashAttention(c.spec, ops), c.shape, c.q, c.k, c.v, c.mask, dOut, true, null);
        NaiveAttentionGrad.Gradients ref = new NaiveAttentionGrad(c.spec, c.shape, c.mask)
            .backward(widen(c.q), widen(c.k), widen(c.v), widen(c.mask.bias()), widen(dOut));
        assertWithinTerms(c.label + ": dQ", ref.query, ref.queryTerms, g.dq);
        assertWithinTerms(c.label + ": dK", ref.key, ref.keyTerms, g.dk);
        assertWithinTerms(c.label + ": dV", ref.value, ref.valueTerms, g.dv);
        if (ref.bias != null) {
            assertWithinTerms(c.label + ": dBias", ref.bias, ref.biasTerms, g.dBias);
        }
        if (!c.largeLogits) {
            assertClose(c.label + ": dQ", ref.query, g.dq);
            assertClose(c.label + ": dK", ref.key, g.dk);
            assertClose(c.label + ": dV", ref.value, g.dv);
            if (ref.bias != null) {
                assertClose(c.label + ": dBias", ref.bias, g.dBias);
            }
        }
    }

    static Stream<Arguments> keyChunkCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            IntStream.range(0, 4).forEach(which -> args.add(Arguments.of(ops, which)));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} case {1}")
    @MethodSource("keyChunkCases")
    @DisplayName("with the keys split into chunks (lengths not multiples of a chunk, L ≠ S, L = 1, grouped heads) the "
        + "gradients match the float64 reference, and the parallel call gives the sequential call's bits")
    void keyChunksMatchReference(TileOps ops, int which) {
        RandomTensors rnd = new RandomTensors(100 + which);
        AttentionSpec spec = AttentionSpec.defaults();
        AttentionShape shape;
        RowMask mask;
        switch (which) {
            case 0 -> {  // 2 chunks of 550; causal bottom-right, padding, a boolean mask, a bias per head
                shape = new AttentionShape(300, 1100, 2, 1, 8, 5);
                spec = spec.withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT).withBlocks(32, 40);
                mask = RowMask.keyLength(1050).withAllowed(rnd.bernoulli(300 * 1100, 0.8))
                    .withBias(rnd.normal(2 * 300 * 1100, 1));
            }
            case 1 -> {  // 2 chunks of 515; causal top-left with a window, a bias, automatic blocks
                shape = new AttentionShape(1100, 1030, 1, 1, 16, 16);
                spec = spec.withCausal(true).withWindow(200, AttentionSpec.UNBOUNDED);
                mask = RowMask.NONE.withBias(rnd.normal(1100 * 1030, 1));
            }
            case 2 -> {  // 3 chunks of 682 or 683 per key/value head, one query
                shape = new AttentionShape(1, 2048, 3, 3, 64, 64);
                mask = RowMask.NONE;
            }
            default -> {  // 3 chunks of 512 or 513; 4 heads over 1 and a bias shared by them, padding
                shape = new AttentionShape(513, 1537, 4, 1, 16, 8);
                spec = spec.withBlocks(64, 64);
                mask = RowMask.keyLength(1400).withBias(rnd.normal(513 * 1537, 1));
            }
        }
        FlashAttention kernel = new FlashAttention(spec, ops);
        assertTrue(kernel.backwardPartialFloats(shape) > 0, "keys split");
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1), dOut = rnd.normal(shape.outputSize(), 1);
        Grads g = new Grads(kernel, shape, q, k, v, mask, dOut, true, null);
        ForkJoinPool pool = new ForkJoinPool(3);
        try {
            assertBitwiseEqual(g, new Grads(kernel, shape, q, k, v, mask, dOut, true, pool), 3);
        } finally {
            pool.shutdown();
        }
        NaiveAttentionGrad.Gradients ref = new NaiveAttentionGrad(spec, shape, mask)
            .backward(widen(q), widen(k), widen(v), widen(mask.bias()), widen(dOut));
        assertClose("dQ", ref.query, g.dq);
        assertClose("dK", ref.key, g.dk);
        assertClose("dV", ref.value, g.dv);
        if (ref.bias != null) {
            assertClose("dBias", ref.bias, g.dBias);
        }
    }

    /**
     * ‖got − ref‖ ≤ 1e-5·‖terms‖: relative to the size of the terms summed rather than to their
     * sum, which cancels to almost nothing where large logits make a row nearly one-hot (there no
     * float32 computation, PyTorch's included, gets 1e-5 of the sum). No NaN.
     */
    static void assertWithinTerms(String what, double[] ref, double[] terms, float[] got) {
        double diff2 = 0, terms2 = 0;
        for (int i = 0; i < ref.length; i++) {
            assertTrue(!Float.isNaN(got[i]), what + ": NaN at " + i);
            diff2 += (got[i] - ref[i]) * (got[i] - ref[i]);
            terms2 += terms[i] * terms[i];
        }
        double error = Math.sqrt(diff2), size = Math.sqrt(terms2);
        assertTrue(error <= 1e-5 * size, () -> String.format("%s: error %.3g > 1e-5 of the terms' %.3g", what, error,
            size));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
    @DisplayName("the gradients agree with central differences of the float64 forward, every mask kind at once")
    void matchesFiniteDifferences(TileOps ops) {
        RandomTensors rnd = new RandomTensors(5);
        AttentionShape shape = new AttentionShape(6, 9, 4, 2, 3, 5);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT)
            .withWindow(4, AttentionSpec.UNBOUNDED).withBlocks(4, 3);
        float[] bias = rnd.normal(shape.numHeads() * 6 * 9, 1);
        RowMask mask = RowMask.keyLength(8).withAllowed(rnd.bernoulli(6 * 9, 0.8)).withBias(bias);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1), dOut = rnd.normal(shape.outputSize(), 1);
        Grads g = new Grads(new FlashAttention(spec, ops), shape, q, k, v, mask, dOut, true, null);

        NaiveAttentionGrad ref = new NaiveAttentionGrad(spec, shape, mask);
        double[] x0 = widen(q), x1 = widen(k), x2 = widen(v), x3 = widen(bias), g0 = widen(dOut);
        double[][] inputs = {x0, x1, x2, x3};
        float[][] grads = {g.dq, g.dk, g.dv, g.dBias};
        String[] names = {"dQ", "dK", "dV", "dBias"};
        for (int a = 0; a < inputs.length; a++) {
            double[] x = inputs[a], numeric = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                double keep = x[i], eps = 1e-6;
                x[i] = keep + eps;
                double up = dot(g0, ref.output(x0, x1, x2, x3));
                x[i] = keep - eps;
                double down = dot(g0, ref.output(x0, x1, x2, x3));
                x[i] = keep;
                numeric[i] = (up - down) / (2 * eps);
            }
            assertClose(names[a] + " against central differences", numeric, grads[a]);
        }
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
    @DisplayName("a query row that sees no key contributes nothing and gets dQ = 0, never NaN")
    void fullyMaskedRowsContributeNothing(TileOps ops) {
        RandomTensors rnd = new RandomTensors(8);
        AttentionShape shape = new AttentionShape(5, 4, 1, 1, 3, 2);
        boolean[] allowed = rnd.bernoulli(20, 0.9);
        Arrays.fill(allowed, 4, 8, false);       // row 1 sees nothing
        float[] bias = rnd.normal(20, 1);
        Arrays.fill(bias, 12, 16, Float.NEGATIVE_INFINITY);  // row 3 neither
        RowMask mask = RowMask.NONE.withAllowed(allowed).withBias(bias);
        float[] q = rnd.normal(15, 1), k = rnd.normal(12, 1), v = rnd.normal(8, 1), dOut = rnd.normal(10, 1);
        Grads g = new Grads(new FlashAttention(AttentionSpec.defaults().withBlocks(2, 2), ops), shape, q, k, v, mask,
            dOut, true, null);
        for (float x : g.dq) {
            assertTrue(Float.isFinite(x), "dQ finite");
        }
        assertTrue(Arrays.equals(new float[3], Arrays.copyOfRange(g.dq, 3, 6)), "row 1's dQ");
        assertTrue(Arrays.equals(new float[3], Arrays.copyOfRange(g.dq, 9, 12)), "row 3's dQ");
        assertTrue(Arrays.equals(new float[4], Arrays.copyOfRange(g.dBias, 4, 8)), "row 1's dBias");
        assertTrue(Arrays.equals(new float[4], Arrays.copyOfRange(g.dBias, 12, 16)), "row 3's dBias");
        NaiveAttentionGrad.Gradients ref = new NaiveAttentionGrad(AttentionSpec.defaults(), shape, mask)
            .backward(widen(q), widen(k), widen(v), widen(bias), widen(dOut));
        assertClose("dK", ref.key, g.dk);
        assertClose("dV", ref.value, g.dv);
    }

    static Stream<Arguments> parallelCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            for (String bias : new String[] {"none", "per head", "shared"}) {
                // 6 heads over 3 key/value heads: a unit per key/value head; 1 and 2 heads: key chunks
                for (int[] heads : new int[][] {{6, 3}, {1, 1}, {2, 1}}) {
                    args.add(Arguments.of(ops, bias, heads[0], heads[1]));
                }
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} bias {1}, {2} heads over {3}")
    @MethodSource("parallelCases")
    @DisplayName("the parallel backward is bitwise equal to the sequential one on 1 to 4 threads, with its units per "
        + "key/value head or per key chunk, under causal bottom-right, window, padding and bias")
    void parallelEqualsSequential(TileOps ops, String biasKind, int heads, int kvHeads) {
        RandomTensors rnd = new RandomTensors(13);
        boolean split = heads < 6;
        // split: 4 chunks of 512 keys, each seen by a different run of queries (a window of 600 keys)
        int L = split ? 1100 : 97, S = split ? 2048 : 130;
        AttentionShape shape = new AttentionShape(L, S, heads, kvHeads, split ? 8 : 16, split ? 4 : 8);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT)
            .withWindow(600, AttentionSpec.UNBOUNDED).withBlocks(32, 24);
        RowMask mask = RowMask.keyLength(S - 37);
        if (!"none".equals(biasKind)) {
            mask = mask.withBias(rnd.normal("shared".equals(biasKind) ? L * S : heads * L * S, 1));
        }
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1), dOut = rnd.normal(shape.outputSize(), 1);
        FlashAttention kernel = new FlashAttention(spec, ops);
        assertEquals(split, kernel.backwardPartialFloats(shape) > 0, "keys split");
        Grads sequential = new Grads(kernel, shape, q, k, v, mask, dOut, true, null);
        for (int threads = 1; threads <= 4; threads++) {
            ForkJoinPool pool = new ForkJoinPool(threads);
            try {
                assertBitwiseEqual(sequential, new Grads(kernel, shape, q, k, v, mask, dOut, true, pool), threads);
            } finally {
                pool.shutdown();
            }
        }
        if (!split) {  // keyChunksMatchReference holds split keys to the reference
            NaiveAttentionGrad.Gradients ref = new NaiveAttentionGrad(spec, shape, mask)
                .backward(widen(q), widen(k), widen(v), widen(mask.bias()), widen(dOut));
            assertClose("dK", ref.key, sequential.dk);
        }
    }

    private static void assertBitwiseEqual(Grads sequential, Grads parallel, int threads) {
        assertTrue(Arrays.equals(sequential.dq, parallel.dq), "dQ, threads " + threads);
        assertTrue(Arrays.equals(sequential.dk, parallel.dk), "dK, threads " + threads);
        assertTrue(Arrays.equals(sequential.dv, parallel.dv), "dV, threads " + threads);
        assertTrue(Arrays.equals(sequential.dBias, parallel.dBias), "dBias, threads " + threads);
    }

    @Test
    @DisplayName("backward scratch is bounded by the blocks and head dimensions, whatever the sequence length")
    void scratchIsIndependentOfLength() {
        AttentionSpec spec = AttentionSpec.defaults().withBlocks(32, 48);
        for (int n : new int[] {1, 20, 100, 3000}) {
            Workspace ws = new Workspace();
            AttentionShape shape = new AttentionShape(n, n, 1, 1, 16, 8);
            RandomTensors rnd = new RandomTensors(n);
            float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
            float[] v = rnd.normal(shape.valueSize(), 1), dOut = rnd.normal(shape.outputSize(), 1);
            FlashAttention kernel = new FlashAttention(spec).withPath(AttentionPath.TILED);
            float[] out = new float[shape.outputSize()], lse = new float[n];
            kernel.forward(shape, q, k, v, RowMask.NONE, out, lse, new Workspace());
            kernel.backward(shape, q, k, v, RowMask.NONE, out, lse, dOut, new float[q.length], new float[k.length],
                new float[v.length], null, ws);
            assertEquals(spec.withBlocks(Math.min(32, n), 48).backwardScratchFloats(16, 8), ws.floats(), "n = " + n);
            assertTrue(ws.floats() <= kernel.backwardScratchFloats(16, 8), "n = " + n);
        }
    }

    @Test
    @DisplayName("wrong sizes, a bias gradient without a bias and aliased outputs are rejected naming the tensor")
    void checksArguments() {
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
        AttentionShape shape = new AttentionShape(3, 4, 2, 1, 2, 5);
        float[] q = new float[12], k = new float[8], v = new float[20], out = new float[30], lse = new float[6];
        float[] dOut = new float[30], dq = new float[12], dk = new float[8], dv = new float[20];
        Workspace ws = new Workspace();
        assertMessage("output gradient", () -> kernel.backward(shape, q, k, v, RowMask.NONE, out, lse, new float[29],
            dq, dk, dv, null, ws));
        assertMessage("log-sum-exp", () -> kernel.backward(shape, q, k, v, RowMask.NONE, out, new float[3], dOut,
            dq, dk, dv, null, ws));
        assertMessage("key gradient", () -> kernel.backward(shape, q, k, v, RowMask.NONE, out, lse, dOut,
            dq, new float[9], dv, null, ws));
        assertMessage("no additive bias", () -> kernel.backward(shape, q, k, v, RowMask.NONE, out, lse, dOut,
            dq, dk, dv, new float[12], ws));
        RowMask biased = RowMask.NONE.withBias(new float[12]);
        assertMessage("bias gradient", () -> kernel.backward(shape, q, k, v, biased, out, lse, dOut,
            dq, dk, dv, new float[24], ws));
        assertMessage("query gradient", () -> kernel.backward(shape, q, k, v, RowMask.NONE, out, lse, dOut,
            q, dk, dv, null, ws));
    }

    private static void assertMessage(String part, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }
}
