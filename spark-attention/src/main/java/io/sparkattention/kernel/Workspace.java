package io.sparkattention.kernel;

/**
 * Scratch memory of one kernel call: the Bq×Bk score tile (keys {@link #scoreStride} apart), the running max, sum and rescale factor
 * (Bq each), the unnormalised Bq×dv output accumulator, the packed Bq×d query block (in the tile
 * implementation's layout) and, for implementations that want them, contiguous copies of one key tile (Bk rows of
 * {@link #keyRow} floats) and value tile (Bk×dv). A backward call adds a second score tile (dP),
 * the packed Bq×dv block of dO, the Bq×d dQ accumulator and row copies of the Q and dO blocks,
 * and reuses the running max and sum as the block's log-sum-exp shift and its D = rowsum(dO∘O). This is all the extra memory the kernel
 * uses (besides the partial dQ of a parallel backward call's key chunks,
 * {@link FlashAttention#backwardPartialFloats}), and it does not depend on L or S. Not thread-safe: one per thread; reusing it across calls avoids
 * garbage in tight loops.
 */
public final class Workspace {

    /**
     * Distance in floats between the key rows the Vector score kernel reads on its fast path. As a
     * compile-time constant it lets C2 address the six key rows of a block from one index
     * register with constant displacements; with a run-time stride C2 keeps a 64-bit address per
     * row, rebuilds each one every step and spills: the fixed stride runs 1.28–1.40× as fast (Zen 3,
     * d = 64). The kernel packs each key tile with rows this far apart whenever d ≤ KEY_ROW
     * ({@link #keyRow}); longer rows take the Vector kernel's run-time-stride loop.
     */
    static final int KEY_ROW = 64;

    float[] scores = new float[0];
    float[] rowMax = new float[0];
    float[] rowSum = new float[0];
    float[] rowScale = new float[0];
    float[] acc = new float[0];
    float[] queries = new float[0];
    float[] keys = new float[0];
    float[] values = new float[0];
    /**
     * Backward pass only: the dP tile (as {@link #scores}), the packed dO block (Bq×dv, the tile
     * implementation's layout), the dQ accumulator (Bq×d), and the block's Q and dO rows copied
     * contiguous (Bq×d, Bq×dv): the key-side products read every row of a strip once per few
     * keys, and rows H·d floats apart in the input would fall into the same few cache sets.
     */
    float[] gradScores = new float[0];
    float[] gradOut = new float[0];
    float[] gradQuery = new float[0];
    float[] queryRows = new float[0];
    float[] gradOutRows = new float[0];
    /** The direct path's scratch ({@link DirectAttention}), made on first use. */
    private DirectAttention.Workspace direct;

    /** The scratch of the calls this workspace serves on the direct path. */
    DirectAttention.Workspace direct() {
        if (direct == null) {
            direct = new DirectAttention.Workspace();
        }
        return direct;
    }

    /** Grows the buffers to fit {@code spec}'s blocks (both set), head dimension d and value dimension dv. */
    void ensure(AttentionSpec spec, int d, int dv) {
        if (!spec.blocksSet()) {
            throw new IllegalArgumentException("blocks left to the tile implementation, resolve them first: " + spec);
        }
        ensure(spec.queryBlock(), spec.keyBlock(), d, dv);
    }

    /** Grows the buffers to fit blocks of bq queries × bk keys, head dimension d and value dimension dv. */
    void ensure(int bq, int bk, int d, int dv) {
        int tile = scoreStride(bq) * bk;
        if (scores.length < tile) {
            scores = new float[tile];
        }
        if (rowMax.length < bq) {
            rowMax = new float[bq];
            rowSum = new float[bq];
            rowScale = new float[bq];
        }
        if (acc.length < bq * dv) {
            acc = new float[bq * dv];
        }
        if (queries.length < bq * d) {
            queries = new float[bq * d];
        }
        if (keys.length < bk * keyRow(d)) {
            keys = new float[bk * keyRow(d)];
        }
        if (values.length < bk * dv) {
            values = new float[bk * dv];
        }
    }

    /**
     * Grows the buffers to fit a backward call's blocks ({@link AttentionSpec#backwardScratchFloats}):
     * the forward's, a value tile with rows {@link #keyRow}{@code (dv)} apart, and the backward-only
     * buffers.
     */
    void ensureBackward(int bq, int bk, int d, int dv) {
        ensure(bq, bk, d, dv);
        if (values.length < bk * keyRow(dv)) {
            values = new float[bk * keyRow(dv)];
        }
        int tile = scoreStride(bq) * bk;
        if (gradScores.length < tile) {
            gradScores = new float[tile];
        }
        if (gradOut.length < bq * dv) {
            gradOut = new float[bq * dv];
            gradOutRows = new float[bq * dv];
        }
        if (gradQuery.length < bq * d) {
            gradQuery = new float[bq * d];
            queryRows = new float[bq * d];
        }
    }

    /**
     * Distance between two keys' rows in the packed key tile: {@code d}, padded up to
     * {@link #KEY_ROW} when shorter, because the Vector score kernel is fastest when the rows are
     * exactly that far apart.
     */
    static int keyRow(int d) {
        return Math.max(d, KEY_ROW);
    }

    /**
     * A distance between key rows of a score tile for strips of {@code w} queries, at least
     * {@code w}: {@code w} rounded up to whole 8-float groups, plus one group when that count is
     * even. A tile of 256 queries with keys 1 KiB apart puts the 256 lines a softmax pass reads
     * down one column into 4 of L1's 64 sets (8 ways: 32 lines), so every pass fetches each line
     * from L2 again; 264 floats (1 056 bytes) spreads them over all the sets, and a 256×256 tile's
     * softmax passes take about 0.8× the time.
     */
    static int scoreStride(int w) {
        int groups = (w + 7) / 8;
        return 8 * (groups % 2 == 0 ? groups + 1 : groups);
    }

    /** Copies {@code rows} rows of {@code cols} floats from a strided view into {@code dst}, {@code ldDst} apart. */
    static void packRows(int rows, int cols, float[] src, int off, int ld, float[] dst, int ldDst) {
        for (int r = 0; r < rows; r++) {
            System.arraycopy(src, off + r * ld, dst, r * ldDst, cols);
        }
    }

    /** Floats held right now (for memory accounting in benchmarks and tests). */
    public long floats() {
        return (long) scores.length + rowMax.length + rowSum.length + rowScale.length + acc.length + queries.length
            + keys.length + values.length + gradScores.length + gradOut.length + gradQuery.length + queryRows.length
            + gradOutRows.length;
    }
}
