package io.sparkattention.kernel;

import io.sparkattention.testing.NaiveAttention;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tiled kernel against the float64 reference, for every tile implementation. */
class FlashAttentionTest {

    static Stream<Arguments> randomCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            IntStream.range(0, 150).forEach(seed -> args.add(Arguments.of(ops, AttentionCase.random(seed))));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("randomCases")
    @DisplayName("output, log-sum-exp and weights match the float64 reference on random shapes and masks")
    void matchesReference(TileOps ops, AttentionCase c) {
        NaiveAttention.Result ref = NaiveAttention.forward(c.spec, c.shape, c.q, c.k, c.v, c.mask);
        FlashAttention kernel = new FlashAttention(c.spec, ops);
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
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("randomCases")
    @DisplayName("key-block partials merged with the log-sum-exp combiner equal the whole sequence")
    void keyBlockPartialsMergeExactly(TileOps ops, AttentionCase c) {
        if (c.shape.numHeads() != 1 || c.shape.numKvHeads() != 1) {
            return;  // forwardBlock is single-head; the multi-head cases are covered above
        }
        int L = c.shape.queryLength(), S = c.shape.keyLength(), d = c.shape.headDim(), dv = c.shape.valueDim();
        NaiveAttention.Result ref = NaiveAttention.forward(c.spec, c.shape, c.q, c.k, c.v, c.mask);
        FlashAttention kernel = new FlashAttention(c.spec, ops);
        Workspace ws = new Workspace();
        int queryChunk = Math.max(1, (L + 2) / 3), keyChunk = Math.max(1, (S + 3) / 4);
        float[] out = new float[L * dv];
        float[] lse = new float[L];
        for (int q0 = 0; q0 < L; q0 += queryChunk) {
            int rows = Math.min(queryChunk, L - q0);
            float[] mergedOut = new float[rows * dv];
            float[] mergedLse = new float[rows];
            Arrays.fill(mergedLse, Float.NEGATIVE_INFINITY);
            for (int k0 = 0; k0 < S; k0 += keyChunk) {
                int keys = Math.min(keyChunk, S - k0);
                float[] partOut = new float[rows * dv];
                float[] partLse = new float[rows];
                kernel.forwardBlock(rows, keys, d, dv,
                    Arrays.copyOfRange(c.q, q0 * d, (q0 + rows) * d),
                    Arrays.copyOfRange(c.k, k0 * d, (k0 + keys) * d),
                    Arrays.copyOfRange(c.v, k0 * dv, (k0 + keys) * dv),
                    new BlockPosition(q0, k0, L, S, c.mask.validKeys()),
                    slice(c.mask.allowed(), S, q0, rows, k0, keys), slice(c.mask.bias(), S, q0, rows, k0, keys),
                    partOut, partLse, ws);
                LseMerge.mergeInto(rows, dv, mergedOut, mergedLse, partOut, partLse);
            }
            System.arraycopy(mergedOut, 0, out, q0 * dv, rows * dv);
            System.arraycopy(mergedLse, 0, lse, q0, rows);
        }
        assertClose(c.label + " merged output", ref.out, out);
        assertClose(c.label + " merged lse", ref.lse, lse);
    }

    @Test
    @DisplayName("a query row that sees no key gets output 0 and log-sum-exp -inf, never NaN")
    void fullyMaskedRowsAreZero() {
        RandomTensors rnd = new RandomTensors(7);
        AttentionShape shape = new AttentionShape(6, 5, 2, 2, 4, 3);
        boolean[] allowed = rnd.bernoulli(6 * 5, 0.8);
        Arrays.fill(allowed, 2 * 5, 3 * 5, false);                     // row 2 sees nothing
        float[] bias = new float[6 * 5];
        Arrays.fill(bias, 4 * 5, 5 * 5, Float.NEGATIVE_INFINITY);       // row 4 sees nothing
        RowMask mask = RowMask.NONE.withAllowed(allowed).withBias(bias);
        float[] out = new float[shape.outputSize()];
        float[] lse = new float[2 * 6];
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults().withBlocks(4, 2));
        kernel.forward(shape, q, k, rnd.normal(shape.valueSize(), 1), mask, out, lse);
        for (int h = 0; h < 2; h++) {
            for (int row : new int[] {2, 4}) {
                assertEquals(Float.NEGATIVE_INFINITY, lse[h * 6 + row]);
                for (int t = 0; t < 3; t++) {
                    assertEquals(0f, out[row * 6 + h * 3 + t]);
                }
            }
        }
        float[] w = new float[6 * 5];
        kernel.weights(shape, q, k, mask, lse, false, w, new Workspace());
        for (float x : w) {
            assertFalse(Float.isNaN(x));
        }
        assertEquals(0f, w[2 * 5 + 1]);

        // No key at all (S = 0) and zero valid keys behave the same.
        AttentionShape noKeys = new AttentionShape(3, 0, 1, 1, 4, 2);
        float[] out0 = new float[6];
        Arrays.fill(out0, 9f);
        float[] lse0 = new float[3];
        kernel.forward(noKeys, new float[12], new float[0], new float[0], RowMask.NONE, out0, lse0);
        assertTrue(Arrays.equals(new float[6], out0));
        assertEquals(Float.NEGATIVE_INFINITY, lse0[0]);
    }

    static Stream<Arguments> largeTiles() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            args.add(Arguments.of(ops, "the implementation's own", 520, 300, AttentionSpec.AUTO_BLOCK));
            args.add(Arguments.of(ops, "1024x256", 1100, 1030, 1024));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1} tiles, L={2}, S={3}")
    @MethodSource("largeTiles")
    @DisplayName("default-sized tiles on long rows match the float64 reference, with every mask kind")
    void largeTilesOnLongRows(TileOps ops, String tiles, int L, int S, int queryBlock) {
        for (boolean causal : new boolean[] {false, true}) {
            RandomTensors rnd = new RandomTensors(causal ? 11 : 12);
            AttentionShape shape = new AttentionShape(L, S, 2, 1, 64, 40);
            int plane = shape.queryLength() * shape.keyLength();
            AttentionSpec spec = AttentionSpec.defaults().withCausal(causal).withScale(0.1f)
                .withBlocks(queryBlock, AttentionSpec.AUTO_BLOCK);
            RowMask mask = RowMask.keyLength(S - 10).withBias(rnd.normal(2 * plane, 1.0));
            float[] q = rnd.normal(shape.querySize(), 2), k = rnd.normal(shape.keySize(), 2);
            float[] v = rnd.normal(shape.valueSize(), 1);
            NaiveAttention.Result ref = NaiveAttention.forward(spec, shape, q, k, v, mask);
            FlashAttention kernel = new FlashAttention(spec, ops);
            Workspace ws = new Workspace();
            float[] out = new float[shape.outputSize()];
            float[] lse = new float[2 * shape.queryLength()];
            kernel.forward(shape, q, k, v, mask, out, lse, ws);
            assertClose("causal=" + causal + " output", ref.out, out);
            assertClose("causal=" + causal + " lse", ref.lse, lse);
            float[] weights = new float[2 * plane];
            kernel.weights(shape, q, k, mask, lse, true, weights, ws);
            assertClose("causal=" + causal + " weights", ref.weights, weights);
        }
    }

    private static boolean[] slice(boolean[] a, int S, int q0, int rows, int k0, int keys) {
        if (a == null) {
            return null;
        }
        boolean[] s = new boolean[rows * keys];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(a, (q0 + r) * S + k0, s, r * keys, keys);
        }
        return s;
    }

    private static float[] slice(float[] a, int S, int q0, int rows, int k0, int keys) {
        if (a == null) {
            return null;
        }
        float[] s = new float[rows * keys];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(a, (q0 + r) * S + k0, s, r * keys, keys);
        }
        return s;
    }
}
