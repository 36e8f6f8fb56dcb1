package io.sparkattention.kernel;

/**
 * The blocks a kernel call cuts: the spec's where it sets them, the tile implementation's where
 * it leaves them open ({@link AttentionSpec#AUTO_BLOCK}), and for an automatic query block a
 * shrink on calls with few (head, query block) units so that a parallel call keeps its threads
 * busy. A function of the spec, the tile implementation and the call's shape alone, so the
 * sequential and the parallel calls cut the same blocks and give the same bits.
 */
final class BlockPolicy {

    /**
     * A call with blocks left to the tile implementation has at least this many (head, query
     * block) units, or query blocks of {@link #MIN_AUTO_QUERY_BLOCK} rows: large default blocks
     * (1024 rows with AVX-512) would otherwise leave a parallel call's threads idle on few heads
     * (one head of 1024 tokens would be one unit). Eight keeps up to 8 threads busy, or 2 threads
     * balanced when the units' costs differ (causal).
     */
    static final int MIN_UNITS = 8;
    /** The smallest query block {@link #MIN_UNITS} shrinks an automatic block to. */
    static final int MIN_AUTO_QUERY_BLOCK = 256;

    /** As given: blocks may be left open. */
    private final AttentionSpec spec;
    /** {@link #spec} with the tile implementation's blocks where it left them open. */
    private final AttentionSpec tiles;

    BlockPolicy(AttentionSpec spec, TileOps ops) {
        this.spec = spec;
        this.tiles = spec.withBlocks(
            spec.queryBlock() == AttentionSpec.AUTO_BLOCK ? ops.defaultQueryBlock() : spec.queryBlock(),
            spec.keyBlock() == AttentionSpec.AUTO_BLOCK ? ops.defaultKeyBlock() : spec.keyBlock());
    }

    /** Query rows per tile before any shrink. */
    int queryBlock() {
        return tiles.queryBlock();
    }

    /** Keys per tile. */
    int keyBlock() {
        return tiles.keyBlock();
    }

    /** The resolved blocks' scratch bound ({@link AttentionSpec#scratchFloats}). */
    long scratchFloats(int headDim, int valueDim) {
        return tiles.scratchFloats(headDim, valueDim);
    }

    /** The resolved blocks' backward scratch bound ({@link AttentionSpec#backwardScratchFloats}). */
    long backwardScratchFloats(int headDim, int valueDim) {
        return tiles.backwardScratchFloats(headDim, valueDim);
    }

    /**
     * Query rows per block for one call on {@code shape}: {@link #queryBlock}, or, when the spec
     * left it open, halved while the call would have fewer than {@link #MIN_UNITS} (head, query
     * block) units, down to {@link #MIN_AUTO_QUERY_BLOCK}.
     */
    int queryBlockFor(AttentionShape shape) {
        int bq = tiles.queryBlock();
        if (spec.queryBlock() != AttentionSpec.AUTO_BLOCK) {
            return bq;
        }
        int L = shape.queryLength(), H = shape.numHeads();
        while (bq > MIN_AUTO_QUERY_BLOCK && (long) H * ((L + bq - 1) / bq) < MIN_UNITS) {
            bq = Math.max(MIN_AUTO_QUERY_BLOCK, bq / 2);
        }
        return bq;
    }

    /** The spec with the blocks a call on {@code whole} cuts fixed, for computing a part of it alone. */
    AttentionSpec fixedFor(AttentionShape whole) {
        return spec.withBlocks(queryBlockFor(whole), tiles.keyBlock());
    }
}
