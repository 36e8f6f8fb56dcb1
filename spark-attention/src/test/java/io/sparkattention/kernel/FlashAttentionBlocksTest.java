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
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the kernel cuts its work: block sizes, tiles skipped, bounded scratch, the same bits on any thread count. */
class FlashAttentionBlocksTest {

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

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
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
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
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
}
