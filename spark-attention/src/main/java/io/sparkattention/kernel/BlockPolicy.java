package io.sparkattention.kernel;

/**
 * The blocks a kernel call cuts: the spec's where it sets them, the tile implementation's where
 * it leaves them open ({@link AttentionSpec#AUTO_BLOCK}), for an automatic query block a shrink
 * on calls with few (head, query block) units, and for the backward pass a split of the keys into
 * chunks on calls with few key/value heads ({@link KeyChunks}), so that a parallel call keeps its
 * threads busy. A function of the spec, the tile implementation and the call's shape alone, so the
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
    /**
     * The fewest keys in a backward key chunk ({@link #keyChunksFor}). Every unit packs the Q and
     * dO rows of each query block it walks and adds up a partial dQ, work in proportion to the
     * rows times (d + dv), against the rows times the chunk's keys times (d + dv) of its products:
     * at 512 keys (two default key tiles) the extra is a fraction of a percent.
     */
    static final int MIN_CHUNK_KEYS = 512;

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

    /**
     * The key chunks of a backward call on {@code shape}: as many as the call needs for
     * {@link #MIN_UNITS} (key/value head, chunk) units, ⌈MIN_UNITS / Hkv⌉, but no more than leave
     * each chunk {@link #MIN_CHUNK_KEYS} keys; one chunk (no split) on short keys or many key/value
     * heads.
     */
    KeyChunks keyChunksFor(AttentionShape shape) {
        int S = shape.keyLength(), Hkv = shape.numKvHeads();
        int wanted = (MIN_UNITS + Hkv - 1) / Hkv;
        return new KeyChunks(S, Math.max(1, Math.min(wanted, S / MIN_CHUNK_KEYS)));
    }

    /** The spec with the blocks a call on {@code whole} cuts fixed, for computing a part of it alone. */
    AttentionSpec fixedFor(AttentionShape whole) {
        return spec.withBlocks(queryBlockFor(whole), tiles.keyBlock());
    }
}
