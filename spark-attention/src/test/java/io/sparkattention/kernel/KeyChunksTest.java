package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The backward pass's key chunks: how many a shape gets, that they tile the keys, that a chunk's
 * walk covers exactly the query blocks that see its keys, and that the chunks' walks together visit
 * the band's (query, key) pairs once each while skipping masked tiles.
 */
class KeyChunksTest {

    @Test
    @DisplayName("the keys split into ⌈MIN_UNITS / Hkv⌉ chunks of at least MIN_CHUNK_KEYS keys that tile [0, S) in "
        + "order, and into one chunk when the keys are short or the key/value heads many")
    void chunksTileTheKeys() {
        BlockPolicy blocks = new BlockPolicy(AttentionSpec.defaults(), TileOps.get());
        for (int S : new int[] {0, 1, 511, 1023, 1024, 1100, 2100, 4095, 4096, 65536}) {
            for (int kvHeads : new int[] {1, 2, 3, 8, 16}) {
                AttentionShape shape = new AttentionShape(7, S, 2 * kvHeads, kvHeads, 16, 8);
                KeyChunks chunks = blocks.keyChunksFor(shape);
                int wanted = (BlockPolicy.MIN_UNITS + kvHeads - 1) / kvHeads;
                String where = "S = " + S + ", Hkv = " + kvHeads;
                assertEquals(Math.max(1, Math.min(wanted, S / BlockPolicy.MIN_CHUNK_KEYS)), chunks.count(), where);
                assertEquals(0, chunks.start(0), where);
                assertEquals(S, chunks.end(chunks.count() - 1), where);
                for (int c = 0; c < chunks.count(); c++) {
                    assertEquals(chunks.start(c + 1), chunks.end(c), where);
                    assertTrue(chunks.count() == 1 || chunks.end(c) - chunks.start(c) >= BlockPolicy.MIN_CHUNK_KEYS,
                        where + ", chunk " + c);
                }
                FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
                assertEquals((long) (chunks.count() - 1) * shape.querySize(), kernel.backwardPartialFloats(shape), where);
            }
        }
    }

    @Test
    @DisplayName("a chunk's walk starts and ends on the query block grid and covers exactly the blocks with a query "
        + "that may see one of its keys, under causal, alignment, window and padding")
    void walksExactlyTheBlocksThatSeeTheChunk() {
        RandomTensors rnd = new RandomTensors(21);
        for (int trial = 0; trial < 400; trial++) {
            int L = rnd.between(0, 60), S = rnd.between(1, 60), Bq = rnd.between(1, 12);
            int left = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 10), right = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 10);
            AttentionSpec spec = AttentionSpec.defaults().withCausal(rnd.uniform() < 0.6).withWindow(left, right)
                .withAlignment(rnd.uniform() < 0.5 ? CausalAlignment.TOP_LEFT : CausalAlignment.BOTTOM_RIGHT);
            KeyBand band = new KeyBand(spec, L, S, rnd.uniform() < 0.5 ? -1 : rnd.between(0, S));
            KeyChunks chunks = new KeyChunks(S, rnd.between(1, Math.min(S, 5)));
            for (int c = 0; c < chunks.count(); c++) {
                int from = chunks.firstRow(c, band, L, Bq), to = chunks.endRow(c, band, L, Bq);
                String where = "trial " + trial + ", " + spec + ", L = " + L + ", S = " + S + ", chunk " + c;
                if (from >= to) {
                    from = to = 0;
                } else {
                    assertEquals(0, from % Bq, where);
                    assertTrue(to % Bq == 0 || to == L, where);
                }
                for (int r = 0; r < L; r += Bq) {
                    boolean sees = band.any(r, Math.min(L, r + Bq), chunks.start(c), chunks.end(c));
                    assertEquals(sees, r >= from && r < to, where + ", block at " + r);
                }
            }
        }
    }

    @Test
    @DisplayName("the chunks' tile walks, in global positions, visit every visible (query, key) pair exactly once and "
        + "load no key tile that their query block cannot see, for every tile implementation")
    void walksVisitTheBandOnce() {
        RandomTensors rnd = new RandomTensors(34);
        for (TileOps ops : TileOpsImplementations.all()) {
            for (int trial = 0; trial < 150; trial++) {
                int L = rnd.between(1, 70), S = rnd.between(1, 70), Bq = rnd.between(1, 20), Bk = rnd.between(1, 20);
                int left = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 12), right = rnd.uniform() < 0.5 ? -1 : rnd.between(0, 12);
                AttentionSpec spec = AttentionSpec.defaults().withCausal(rnd.uniform() < 0.6).withWindow(left, right)
                    .withAlignment(rnd.uniform() < 0.5 ? CausalAlignment.TOP_LEFT : CausalAlignment.BOTTOM_RIGHT);
                KeyBand band = new KeyBand(spec, L, S, rnd.uniform() < 0.5 ? -1 : rnd.between(0, S));
                KeyChunks chunks = new KeyChunks(S, rnd.between(1, Math.min(S, 5)));
                String where = ops.name() + ", trial " + trial + ", " + spec + ", L = " + L + ", S = " + S;
                int[][] visits = new int[L][S];
                for (int c = 0; c < chunks.count(); c++) {
                    final int q0 = chunks.firstRow(c, band, L, Bq), k0 = chunks.start(c);
                    int rows = Math.max(0, chunks.endRow(c, band, L, Bq) - q0);
                    TileWalk.run(ops, band, Bq, Bk, rows, chunks.end(c) - k0, q0, k0, new StripVisitor() {
                        private int i0, bq;

                        @Override
                        void beginBlock(int i0, int bq, boolean visible) {
                            this.i0 = i0;
                            this.bq = bq;
                        }

                        @Override
                        void beginTile(int j0, int j1) {
                            assertTrue(band.any(q0 + i0, q0 + i0 + bq, k0 + j0, k0 + j1), where + ": a masked tile");
                        }

                        @Override
                        void strip(int r0, int w, int c0, int c1) {
                            for (int i = q0 + i0 + r0; i < q0 + i0 + r0 + w; i++) {
                                for (int j = k0 + c0; j < k0 + c1; j++) {
                                    visits[i][j] += band.lo(i) <= j && j <= band.hi(i) ? 1 : 0;
                                }
                            }
                        }

                        @Override
                        void endBlock() {
                        }
                    });
                }
                for (int i = 0; i < L; i++) {
                    for (int j = 0; j < S; j++) {
                        int expected = band.lo(i) <= j && j <= band.hi(i) ? 1 : 0;
                        assertEquals(expected, visits[i][j], where + ": query " + i + ", key " + j);
                    }
                }
            }
        }
    }
}
