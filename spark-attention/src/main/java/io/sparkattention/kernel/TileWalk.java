package io.sparkattention.kernel;

/**
 * The one tile iteration of the kernel: a view of {@code rows} queries × {@code keys} keys of one
 * head, walked as query blocks of Bq → key tiles of Bk → strips of queries (see {@link TileOps}),
 * clipped by the {@link KeyBand}:
 * <pre>
 *   for each query block [i0, i0 + bq):             keys any of its queries sees: [jlo, jhi)
 *     for each key tile [j0, j1) ⊂ [jlo, jhi):       edge = the band cuts through the tile
 *       for each strip [r0, r0 + w) of the block:    w = ops.strip(bq − r0, edge)
 *         [c0, c1) = the tile's keys the strip's queries see; skipped when empty
 * </pre>
 * Key tiles outside the band are never visited, so causal attention does about half the work; on
 * an edge tile the tile implementation may cut narrower strips so that each clips the tile to its
 * own keys. The forward, weights and backward passes are {@link StripVisitor}s of this walk, so
 * they visit exactly the same tiles and strips.
 */
final class TileWalk {

    private TileWalk() {
    }

    /**
     * Walks a view whose first query and key sit at global positions {@code q0} and {@code k0} of
     * their sequence (the band is in global positions).
     *
     * @param Bq query rows per block
     * @param Bk keys per tile
     */
    static void run(TileOps ops, KeyBand band, int Bq, int Bk, int rows, int keys, long q0, long k0,
                    StripVisitor visitor) {
        for (int i0 = 0; i0 < rows; i0 += Bq) {
            final int bq = Math.min(Bq, rows - i0);
            final long first = q0 + i0, last = first + bq - 1;
            // (1) keys any query of this block can see: the band's corners, in view coordinates
            final int jlo = (int) Math.max(0, band.lo(first) - k0);
            final int jhi = (int) Math.min(keys, band.hi(last) - k0 + 1);
            visitor.beginBlock(i0, bq, jlo < jhi);
            for (int j0 = jlo; j0 < jhi; j0 += Bk) {
                final int j1 = Math.min(j0 + Bk, jhi);
                visitor.beginTile(j0, j1);
                final boolean edge = band.lo(last) > k0 + j0 || band.hi(first) < k0 + j1 - 1;
                for (int r0 = 0, w; r0 < bq; r0 += w) {
                    w = ops.strip(bq - r0, edge);
                    final long sFirst = first + r0, sLast = sFirst + w - 1;
                    // (2) the strip's keys in this tile: [c0, c1) in view coordinates
                    final int c0 = (int) Math.max(j0, band.lo(sFirst) - k0);
                    final int c1 = (int) Math.min(j1, band.hi(sLast) - k0 + 1);
                    if (c0 < c1) {
                        visitor.strip(r0, w, c0, c1);
                    }
                }
            }
            visitor.endBlock();
        }
    }
}
