package io.sparkattention.kernel;

/**
 * The start every pass of the {@link TileWalk} shares: per query block, the block's queries packed
 * for the score products with the scale folded in ({@link #beginBlock}); per strip of w queries
 * and nk keys, the scores with the bias added and the masks applied ({@link #strip}):
 * <pre>
 *   S = (scale·Q)·Kᵀ + bias, masked to −∞      nk×w, key-major, keys lds apart, in ws.scores
 * </pre>
 * Shapes: q rows×d; allowed and bias rows×keys or absent. Not thread-safe: one per pass.
 */
final class MaskedScores {

    private final TileOps ops;
    private final Workspace ws;
    private final KeyBand band;
    private final float scale;
    private final int d;
    private final long q0, k0;
    private final MatrixView q, bias;
    private final MaskView allowed;

    private int i0;
    private float alpha = 1f;

    /**
     * @param q0 global position of the view's first query
     * @param k0 global position of the view's first key
     */
    MaskedScores(TileOps ops, Workspace ws, KeyBand band, float scale, int d, long q0, long k0, MatrixView q,
                 MaskView allowed, MatrixView bias) {
        this.ops = ops;
        this.ws = ws;
        this.band = band;
        this.scale = scale;
        this.d = d;
        this.q0 = q0;
        this.k0 = k0;
        this.q = q;
        this.allowed = allowed;
        this.bias = bias;
    }

    /** Starts the block of bq queries at view row i0; packs its queries when some key is visible to it. */
    void beginBlock(int i0, int bq, boolean visible) {
        this.i0 = i0;
        if (visible) {
            alpha = ops.packQueries(bq, d, scale, q.data(), q.at(i0, 0), q.ld(), ws.queries);
        }
    }

    /**
     * The masked scores of the block's rows {@code [r0, r0 + w)} against the nk keys from view key
     * c0, whose rows are {@code ldk} apart in {@code keys} from {@code keysOff}.
     */
    void strip(int r0, int w, int c0, int nk, int lds, float[] keys, int keysOff, int ldk) {
        final int row = i0 + r0;
        ops.scores(w, nk, d, alpha, ws.queries, r0 * d, keys, keysOff, ldk, ws.scores, lds);
        Masking.apply(ws.scores, w, lds, nk, band, q0 + row, k0 + c0, allowed.data(), allowed.at(row, c0),
            allowed.ld(), bias.data(), bias.at(row, c0), bias.ld());
    }
}
