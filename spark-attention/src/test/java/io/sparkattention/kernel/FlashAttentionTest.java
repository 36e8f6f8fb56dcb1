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
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tiled kernel against the float64 reference, for every tile implementation. */
class FlashAttentionTest {

    /** One random case: a shape, a spec, a mask and inputs, drawn from a seed. */
    static final class Case {
        final String label;
        final AttentionSpec spec;
        final AttentionShape shape;
        final RowMask mask;
        final float[] q, k, v;
        /** True when Q and K were drawn 8 times as large as usual (nearly one-hot rows). */
        final boolean largeLogits;

        Case(String label, AttentionSpec spec, AttentionShape shape, RowMask mask, float[] q, float[] k, float[] v,
             boolean largeLogits) {
            this.label = label;
            this.largeLogits = largeLogits;
            this.spec = spec;
            this.shape = shape;
            this.mask = mask;
            this.q = q;
            this.k = k;
            this.v = v;
        }

        static Case random(long seed) {
            RandomTensors rnd = new RandomTensors(seed);
            int L = rnd.pick(0, 1, 2, 3, 7, 16, 17, 31, 64, 65, 100, 129);
            int S = rnd.uniform() < 0.4 ? L : rnd.pick(0, 1, 2, 5, 16, 33, 64, 70, 128, 130, 257);
            int hkv = rnd.pick(1, 1, 2, 3);
            int H = hkv * rnd.pick(1, 1, 2, 3);
            // 64 = Workspace.KEY_ROW: below it key rows are padded to 64, above it they keep their length
            int d = rnd.pick(1, 3, 4, 8, 16, 64, 64, 65, 80);
            int dv = rnd.uniform() < 0.5 ? d : rnd.pick(1, 5, 12, 32);
            AttentionSpec spec = AttentionSpec.defaults()
                .withBlocks(rnd.pick(1, 4, 7, 16, 32, 128, 256), rnd.pick(1, 3, 8, 16, 64, 128, 256));
            if (rnd.uniform() < 0.5) {
                spec = spec.withCausal(true);
            }
            if (rnd.uniform() < 0.5) {
                spec = spec.withAlignment(CausalAlignment.BOTTOM_RIGHT);
            }
            if (rnd.uniform() < 0.3) {
                spec = spec.withWindow(rnd.pick(AttentionSpec.UNBOUNDED, 0, 1, 5, 20),
                    rnd.pick(AttentionSpec.UNBOUNDED, 0, 2, 9));
            }
            if (rnd.uniform() < 0.2) {
                spec = spec.withScale((float) rnd.uniform() * 0.5f);
            }
            RowMask mask = RowMask.NONE;
            if (rnd.uniform() < 0.4) {
                mask = mask.withKeyLength(rnd.between(0, S));
            }
            int plane = L * S;
            if (rnd.uniform() < 0.3) {
                mask = mask.withAllowed(rnd.bernoulli(rnd.uniform() < 0.5 ? plane : H * plane, 0.7));
            }
            if (rnd.uniform() < 0.3) {
                float[] bias = rnd.normal(rnd.uniform() < 0.5 ? plane : H * plane, 1.0);
                for (int i = 0; i < bias.length; i++) {
                    if (rnd.uniform() < 0.1) {
                        bias[i] = Float.NEGATIVE_INFINITY;
                    }
                }
                mask = mask.withBias(bias);
            }
            double inputScale = rnd.uniform() < 0.2 ? 8.0 : 1.0;  // large logits
            AttentionShape shape = new AttentionShape(L, S, H, hkv, d, dv);
            return new Case("seed " + seed + ": " + shape + ", " + spec + ", keyLength=" + mask.validKeys()
                + ", boolMask=" + (mask.allowed() != null) + ", bias=" + (mask.bias() != null) + ", x" + inputScale,
                spec, shape, mask, rnd.normal(shape.querySize(), inputScale), rnd.normal(shape.keySize(), inputScale),
                rnd.normal(shape.valueSize(), 1.0), inputScale > 1);
        }
    }

    static Stream<Arguments> randomCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            IntStream.range(0, 150).forEach(seed -> args.add(Arguments.of(ops, Case.random(seed))));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("randomCases")
    @DisplayName("output, log-sum-exp and weights match the float64 reference on random shapes and masks")
    void matchesReference(TileOps ops, Case c) {
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
    void keyBlockPartialsMergeExactly(TileOps ops, Case c) {
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

    static Stream<Arguments> parallelCases() {
        List<Arguments> args = new ArrayList<>();
        for (TileOps ops : TileOpsImplementations.all()) {
            for (boolean causal : new boolean[] {false, true}) {
                args.add(Arguments.of(ops, causal));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} causal={1}")
    @MethodSource("parallelCases")
    @DisplayName("the parallel forward is bitwise equal to the sequential one, and to the reference")
    void parallelEqualsSequential(TileOps ops, boolean causal) {
        RandomTensors rnd = new RandomTensors(11);
        AttentionShape shape = new AttentionShape(301, 301, 4, 2, 16, 8);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal).withBlocks(32, 48);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1);
        float[] out = parallelEqualsSequential(new FlashAttention(spec, ops), shape, q, k, v, 3);
        NaiveAttention.Result ref = NaiveAttention.forward(spec, shape, q, k, v, RowMask.NONE);
        assertClose("parallel output", ref.out, out);
    }

    /** The output on {@code threads} threads, asserted bitwise equal (and its log-sum-exp) to the sequential call. */
    private static float[] parallelEqualsSequential(FlashAttention kernel, AttentionShape shape, float[] q, float[] k,
                                                    float[] v, int threads) {
        int lseSize = shape.numHeads() * shape.queryLength();
        float[] out1 = new float[shape.outputSize()], lse1 = new float[lseSize];
        kernel.forward(shape, q, k, v, RowMask.NONE, out1, lse1, new Workspace());
        float[] out2 = new float[shape.outputSize()], lse2 = new float[lseSize];
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            kernel.forward(shape, q, k, v, RowMask.NONE, out2, lse2, pool);
        } finally {
            pool.shutdown();
        }
        assertTrue(Arrays.equals(out1, out2), "output");
        assertTrue(Arrays.equals(lse1, lse2), "log-sum-exp");
        return out2;
    }

    static Stream<Arguments> everyImplementation() {
        return TileOpsImplementations.all().stream().map(Arguments::of);
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

    @Test
    @DisplayName("open blocks are the tile implementation's, shrunk to give 8 units but not below 256; set blocks are kept")
    void automaticBlocks() {
        for (TileOps ops : TileOpsImplementations.all()) {
            FlashAttention kernel = new FlashAttention(AttentionSpec.defaults(), ops);
            assertEquals(ops.defaultQueryBlock(), kernel.queryBlock(), ops.name());
            assertEquals(ops.defaultKeyBlock(), kernel.keyBlock(), ops.name());
        }
        FlashAttention auto = new FlashAttention(AttentionSpec.defaults(),
            new CountingOps(TileOps.named("blas"), 1024));
        assertEquals(1024, auto.queryBlockFor(AttentionShape.self(1024, 16, 64)), "16 units");
        assertEquals(1024, auto.queryBlockFor(AttentionShape.self(4096, 2, 64)), "8 units");
        assertEquals(512, auto.queryBlockFor(AttentionShape.self(4096, 1, 64)), "8 units of 512");
        assertEquals(256, auto.queryBlockFor(AttentionShape.self(1024, 1, 64)), "4 units: not below 256");
        assertEquals(256, auto.queryBlockFor(AttentionShape.self(10, 1, 64)));
        FlashAttention set = new FlashAttention(AttentionSpec.defaults().withBlocks(1024, 128),
            new CountingOps(TileOps.named("blas"), 1024));
        assertEquals(1024, set.queryBlockFor(AttentionShape.self(1024, 1, 64)));
        assertEquals(128, set.keyBlock());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("with a shrunk automatic query block the parallel forward equals the sequential one bitwise")
    void shrunkBlocksAgreeAcrossThreads(TileOps ops) {
        RandomTensors rnd = new RandomTensors(13);
        AttentionShape shape = AttentionShape.self(1100, 1, 32);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withWindow(300, 0);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1);
        FlashAttention kernel = new FlashAttention(spec, new CountingOps(ops, 1024));
        assertEquals(256, kernel.queryBlockFor(shape));
        float[] out = parallelEqualsSequential(kernel, shape, q, k, v, 2);
        float[] explicit = new float[shape.outputSize()];
        new FlashAttention(spec.withBlocks(256, AttentionSpec.AUTO_BLOCK), new CountingOps(ops))
            .forward(shape, q, k, v, RowMask.NONE, explicit, null);
        assertTrue(Arrays.equals(explicit, out), "the same as blocks of 256 set explicitly");
        assertClose("output", NaiveAttention.forward(spec, shape, q, k, v, RowMask.NONE).out, out);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("one head computed alone with its row's blocks equals that head inside the row bit for bit")
    void oneHeadWithTheRowsBlocks(TileOps ops) {
        RandomTensors rnd = new RandomTensors(17);
        int L = 1100, H = 4, d = 32, h = 2;
        AttentionShape row = AttentionShape.self(L, H, d), one = AttentionShape.self(L, 1, d);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withWindow(300, 0);
        float[] q = rnd.normal(row.querySize(), 1), k = rnd.normal(row.keySize(), 1);
        float[] v = rnd.normal(row.valueSize(), 1);
        FlashAttention kernel = new FlashAttention(spec, new CountingOps(ops, 1024));
        assertEquals(1024, kernel.queryBlockFor(row));
        assertEquals(256, kernel.queryBlockFor(one));
        float[] out = new float[row.outputSize()];
        kernel.forward(row, q, k, v, RowMask.NONE, out, null);

        float[] qh = new float[L * d], kh = new float[L * d], vh = new float[L * d];
        for (int i = 0; i < L; i++) {
            System.arraycopy(q, i * H * d + h * d, qh, i * d, d);
            System.arraycopy(k, i * H * d + h * d, kh, i * d, d);
            System.arraycopy(v, i * H * d + h * d, vh, i * d, d);
        }
        FlashAttention alone = kernel.withBlocksOf(row);
        assertEquals(1024, alone.queryBlockFor(one));
        float[] outh = new float[L * d];
        alone.forward(one, qh, kh, vh, RowMask.NONE, outh, null);
        for (int i = 0; i < L; i++) {
            for (int t = 0; t < d; t++) {
                assertEquals(Float.floatToIntBits(out[i * H * d + h * d + t]), Float.floatToIntBits(outh[i * d + t]),
                    "query " + i + ", value " + t);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyImplementation")
    @DisplayName("NaN in one query row of a wide strip reaches that row only, also with a scale of 0")
    void nanPropagatesOnEveryPath(TileOps ops) {
        int n = 300, d = 16;
        AttentionShape shape = AttentionShape.self(n, 1, d);
        RandomTensors rnd = new RandomTensors(5);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1);
        q[37 * d + 3] = Float.NaN;
        for (float scale : new float[] {Float.NaN, 0f}) {  // NaN: the default 1/sqrt(d)
            float[] out = new float[shape.outputSize()];
            new FlashAttention(AttentionSpec.defaults().withScale(scale), ops)
                .forward(shape, q, k, v, RowMask.NONE, out, null);
            for (int i = 0; i < n; i++) {
                for (int t = 0; t < d; t++) {
                    assertEquals(i == 37, Float.isNaN(out[i * d + t]), "scale " + scale + ", row " + i);
                }
            }
        }
    }

    @Test
    @DisplayName("NaN in one query row propagates to that row only")
    void nanPropagatesToItsRow() {
        RandomTensors rnd = new RandomTensors(3);
        AttentionShape shape = AttentionShape.self(5, 1, 4);
        float[] q = rnd.normal(20, 1);
        q[2 * 4 + 1] = Float.NaN;
        float[] out = new float[20];
        new FlashAttention(AttentionSpec.defaults()).forward(shape, q, rnd.normal(20, 1), rnd.normal(20, 1),
            RowMask.NONE, out, null);
        for (int i = 0; i < 5; i++) {
            for (int t = 0; t < 4; t++) {
                assertEquals(i == 2, Float.isNaN(out[i * 4 + t]), "row " + i);
            }
        }
    }

    @Test
    @DisplayName("causal attention visits only the tiles on or below the diagonal")
    void skipsTilesOutsideTheBand() {
        CountingOps counting = new CountingOps(new BlasTileOps(Blas.get(), new ScalarSoftmax()));
        AttentionShape shape = AttentionShape.self(512, 1, 8);
        RandomTensors rnd = new RandomTensors(1);
        float[] x = rnd.normal(shape.querySize(), 1);
        AttentionSpec spec = AttentionSpec.defaults().withBlocks(64, 64);
        new FlashAttention(spec.withCausal(true), counting).forward(shape, x, x, x, RowMask.NONE,
            new float[shape.outputSize()], null);
        assertEquals(8 * 9 / 2, counting.tiles, "causal: 36 of 64 tiles");

        counting.tiles = 0;
        new FlashAttention(spec, counting).forward(shape, x, x, x, RowMask.keyLength(100),
            new float[shape.outputSize()], null);
        assertEquals(8 * 2, counting.tiles, "key length 100: two key blocks per query block");

        counting.tiles = 0;
        new FlashAttention(spec.withWindow(64, 0), counting).forward(shape, x, x, x, RowMask.NONE,
            new float[shape.outputSize()], null);
        assertEquals(1 + 7 * 2, counting.tiles, "window of 64 behind the diagonal: at most two key blocks");
    }

    @Test
    @DisplayName("scratch memory is bounded by the blocks and head dimensions, whatever the sequence length")
    void scratchIsIndependentOfLength() {
        AttentionSpec spec = AttentionSpec.defaults().withBlocks(32, 48);
        for (int n : new int[] {1, 20, 100, 4000}) {
            Workspace ws = new Workspace();
            AttentionShape shape = AttentionShape.self(n, 1, 16);
            float[] x = new RandomTensors(n).normal(shape.querySize(), 1);
            FlashAttention kernel = new FlashAttention(spec).withPath(AttentionPath.TILED);
            kernel.forward(shape, x, x, x, RowMask.NONE, new float[shape.outputSize()], null, ws);
            long expected = spec.withBlocks(Math.min(32, n), 48).scratchFloats(16, 16);
            assertEquals(expected, ws.floats(), "n = " + n);
            assertTrue(ws.floats() <= kernel.scratchFloats(16, 16), "n = " + n);
        }
    }

    @Test
    @DisplayName("a kernel travels as its spec and is rebuilt with the receiving JVM's tile implementation")
    void serializesAsItsSpec() throws Exception {
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withBlocks(16, 32).withScale(0.25f);
        FlashAttention sent = new FlashAttention(spec, new CountingOps(TileOps.get()));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(sent);
        }
        FlashAttention received;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            received = (FlashAttention) in.readObject();
        }
        assertEquals(spec, received.spec());
        assertEquals(TileOps.get().name(), received.ops().name());
    }

    @Test
    @DisplayName("wrong sizes are rejected with a message naming the input")
    void checksArguments() {
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
        AttentionShape shape = AttentionShape.self(4, 2, 8);
        float[] x = new float[64];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, new float[63], x, x, RowMask.NONE, new float[64], null));
        assertTrue(e.getMessage().startsWith("query has 63 values"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, x, x, x, RowMask.keyLength(5), new float[64], null));
        assertTrue(e.getMessage().contains("key length 5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, x, x, x, RowMask.NONE.withBias(new float[15]), new float[64], null));
        assertTrue(e.getMessage().contains("additive bias has 15 values"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AttentionShape(4, 4, 6, 4, 8, 8));
        assertThrows(IllegalArgumentException.class, () -> AttentionSpec.defaults().withBlocks(-1, 8));
        assertThrows(IllegalArgumentException.class,
            () -> AttentionSpec.defaults().withBlocks(8, AttentionSpec.MAX_BLOCK + 1));
        assertThrows(IllegalArgumentException.class, () -> AttentionSpec.defaults().withWindow(-2, 0));
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

    /** Counts score tiles computed, to see which tiles the kernel skips; may answer another default query block. */
    static final class CountingOps extends TileOps {
        final TileOps inner;
        final int queryBlock;
        int tiles;

        CountingOps(TileOps inner) {
            this(inner, inner.defaultQueryBlock());
        }

        CountingOps(TileOps inner, int queryBlock) {
            super(inner.softmax());
            this.inner = inner;
            this.queryBlock = queryBlock;
        }

        @Override
        int defaultQueryBlock() {
            return queryBlock;
        }

        @Override
        int defaultKeyBlock() {
            return inner.defaultKeyBlock();
        }

        /** Never narrower on edge tiles: one scores call per visited tile, so calls count tiles. */
        @Override
        int strip(int remaining, boolean edge) {
            return inner.strip(remaining, false);
        }

        @Override
        int scoreStride(int w) {
            return inner.scoreStride(w);
        }

        @Override
        int accOffset(int r0, int bq, int dv) {
            return inner.accOffset(r0, bq, dv);
        }

        @Override
        int accQueryStride(int dv) {
            return inner.accQueryStride(dv);
        }

        @Override
        int accColumnStride(int w, int bq) {
            return inner.accColumnStride(w, bq);
        }

        @Override
        boolean packsKeyValues() {
            return inner.packsKeyValues();
        }

        @Override
        float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
            return inner.packQueries(rows, d, scale, q, qOff, ldq, qp);
        }

        @Override
        void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s,
                    int lds) {
            tiles++;
            inner.scores(w, nk, d, alpha, qp, qpOff, k, kOff, ldk, s, lds);
        }

        @Override
        void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc,
                        int accOff, int ldacc) {
            inner.accumulate(w, nk, dv, p, lds, v, vOff, ldv, acc, accOff, ldacc);
        }

        @Override
        void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                            float[] c, int cOff, int ldc) {
            inner.accumulateKeys(w, nk, n, alpha, p, lds, b, bOff, ldb, c, cOff, ldc);
        }

        @Override
        public String name() {
            return "counting";
        }
    }
}
