package io.sparkattention.kernel;

import java.io.Serializable;
import java.util.Objects;

/**
 * What attention computes, independent of any one sequence: scale, causal masking, sliding window
 * and the kernel's block sizes. Immutable; the {@code with...} methods return modified copies.
 *
 * <p>Semantics: {@code out = softmax(scale·Q·Kᵀ + bias + mask)·V}. The causal mask and the window
 * are both expressed around the aligned diagonal (see {@link CausalAlignment}): query {@code i}
 * may see key {@code j} when {@code i + off − left ≤ j ≤ i + off + right}, where causal means
 * {@code right = 0} and an unbounded side is {@link #UNBOUNDED}.
 */
public final class AttentionSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Window side that is not limited. */
    public static final int UNBOUNDED = -1;

    /**
     * Block size that leaves the choice to the tile implementation ({@link TileOps#defaultQueryBlock},
     * {@link TileOps#defaultKeyBlock}), tuned per implementation and vector width: the default.
     */
    public static final int AUTO_BLOCK = 0;

    /** Largest accepted block size; bigger blocks only lose cache locality. */
    public static final int MAX_BLOCK = 1 << 14;

    private final float scale;
    private final boolean causal;
    private final CausalAlignment alignment;
    private final int windowLeft;
    private final int windowRight;
    private final int queryBlock;
    private final int keyBlock;

    private AttentionSpec(float scale, boolean causal, CausalAlignment alignment, int windowLeft,
                          int windowRight, int queryBlock, int keyBlock) {
        this.scale = scale;
        this.causal = causal;
        this.alignment = alignment;
        this.windowLeft = windowLeft;
        this.windowRight = windowRight;
        this.queryBlock = queryBlock;
        this.keyBlock = keyBlock;
    }

    /** Plain attention: default scale, no causal mask, no window, default blocks. */
    public static AttentionSpec defaults() {
        return new AttentionSpec(Float.NaN, false, CausalAlignment.TOP_LEFT, UNBOUNDED, UNBOUNDED,
            AUTO_BLOCK, AUTO_BLOCK);
    }

    /** Sets an explicit scale; {@code NaN} restores the default {@code 1/sqrt(headDim)}. */
    public AttentionSpec withScale(float newScale) {
        if (Float.isInfinite(newScale)) {
            throw new IllegalArgumentException("scale must be finite (or NaN for 1/sqrt(head_dim)), got " + newScale);
        }
        return new AttentionSpec(newScale, causal, alignment, windowLeft, windowRight, queryBlock, keyBlock);
    }

    /** Turns the causal mask on or off. */
    public AttentionSpec withCausal(boolean newCausal) {
        return new AttentionSpec(scale, newCausal, alignment, windowLeft, windowRight, queryBlock, keyBlock);
    }

    /** Sets the diagonal alignment used by the causal mask and the window. */
    public AttentionSpec withAlignment(CausalAlignment newAlignment) {
        Objects.requireNonNull(newAlignment, "alignment");
        return new AttentionSpec(scale, causal, newAlignment, windowLeft, windowRight, queryBlock, keyBlock);
    }

    /**
     * Sets a sliding window of {@code left} keys before and {@code right} keys after the aligned
     * diagonal; {@link #UNBOUNDED} leaves a side open. With {@code causal}, the right side is 0.
     */
    public AttentionSpec withWindow(int left, int right) {
        checkWindowSide("window left", left);
        checkWindowSide("window right", right);
        return new AttentionSpec(scale, causal, alignment, left, right, queryBlock, keyBlock);
    }

    /** Sets the tile sizes (Bq query rows × Bk keys); {@link #AUTO_BLOCK} leaves one to the tile implementation. */
    public AttentionSpec withBlocks(int newQueryBlock, int newKeyBlock) {
        checkBlock("query block", newQueryBlock);
        checkBlock("key block", newKeyBlock);
        return new AttentionSpec(scale, causal, alignment, windowLeft, windowRight, newQueryBlock, newKeyBlock);
    }

    /** The explicit scale, or NaN when the default {@code 1/sqrt(headDim)} applies. */
    public float scale() {
        return scale;
    }

    /** The scale used for a head of dimension {@code headDim}. */
    public float scaleFor(int headDim) {
        return Float.isNaN(scale) ? (float) (1.0 / Math.sqrt(headDim)) : scale;
    }

    public boolean causal() {
        return causal;
    }

    public CausalAlignment alignment() {
        return alignment;
    }

    public int windowLeft() {
        return windowLeft;
    }

    public int windowRight() {
        return windowRight;
    }

    /** Query rows per tile (Bq), or {@link #AUTO_BLOCK}. */
    public int queryBlock() {
        return queryBlock;
    }

    /** Keys per tile (Bk), or {@link #AUTO_BLOCK}. */
    public int keyBlock() {
        return keyBlock;
    }

    /** True when both block sizes are set, neither left to the tile implementation. */
    public boolean blocksSet() {
        return queryBlock != AUTO_BLOCK && keyBlock != AUTO_BLOCK;
    }

    /**
     * Extra floats one call needs besides its inputs and outputs, whatever L and S:
     * {@code Bq'·Bk + 3·Bq + Bq·dv + Bq·d + Bk·(max(d, 64) + dv)}, with {@code Bq'} Bq padded by at most 15
     * ({@link Workspace#scoreStride}) (score tile, running max, sum and rescale
     * factor, output accumulator, packed query block, packed key tile with its rows padded to at least 64
     * floats, packed value tile). With a block left to the tile implementation, ask the kernel
     * ({@link FlashAttention#scratchFloats}).
     *
     * @throws IllegalStateException when a block is {@link #AUTO_BLOCK}
     */
    public long scratchFloats(int headDim, int valueDim) {
        requireBlocks();
        return (long) Workspace.scoreStride(queryBlock) * keyBlock + 3L * queryBlock + (long) queryBlock * valueDim
            + (long) queryBlock * headDim + (long) keyBlock * (Workspace.keyRow(headDim) + valueDim);
    }

    /**
     * Extra floats one backward call needs besides its inputs and outputs, whatever L and S:
     * {@code 2·Bq'·Bk + 3·Bq + 3·Bq·dv + 3·Bq·d + Bk·(max(d, 64) + max(dv, 64))} (the forward's
     * scratch plus a second score tile for dP, the packed dO block, the dQ accumulator and row
     * copies of the Q and dO blocks; the value tile's rows are padded like the key tile's, as
     * dP = dO·Vᵀ reads them like keys).
     *
     * @throws IllegalStateException when a block is {@link #AUTO_BLOCK}
     */
    public long backwardScratchFloats(int headDim, int valueDim) {
        requireBlocks();
        return 2L * Workspace.scoreStride(queryBlock) * keyBlock + 3L * queryBlock
            + 3L * queryBlock * valueDim + 3L * queryBlock * headDim
            + (long) keyBlock * (Workspace.keyRow(headDim) + Workspace.keyRow(valueDim));
    }

    private void requireBlocks() {
        if (!blocksSet()) {
            throw new IllegalStateException("blocks " + queryBlock + "×" + keyBlock
                + " are left to the tile implementation: FlashAttention.scratchFloats knows them");
        }
    }

    private static void checkWindowSide(String what, int side) {
        if (side < UNBOUNDED) {
            throw new IllegalArgumentException(what + " must be >= 0 or " + UNBOUNDED + " (unbounded), got " + side);
        }
    }

    private static void checkBlock(String what, int size) {
        if (size < AUTO_BLOCK || size > MAX_BLOCK) {
            throw new IllegalArgumentException(what + " must be in [1, " + MAX_BLOCK + "] or " + AUTO_BLOCK
                + " (the tile implementation's), got " + size);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AttentionSpec)) {
            return false;
        }
        AttentionSpec other = (AttentionSpec) o;
        return Float.compare(scale, other.scale) == 0 && causal == other.causal && alignment == other.alignment
            && windowLeft == other.windowLeft && windowRight == other.windowRight
            && queryBlock == other.queryBlock && keyBlock == other.keyBlock;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scale, causal, alignment, windowLeft, windowRight, queryBlock, keyBlock);
    }

    @Override
    public String toString() {
        return "AttentionSpec{scale=" + (Float.isNaN(scale) ? "1/sqrt(d)" : Float.toString(scale))
            + ", causal=" + causal + ", alignment=" + alignment
            + ", window=(" + windowLeft + ", " + windowRight + "), blocks="
            + (queryBlock == AUTO_BLOCK ? "auto" : Integer.toString(queryBlock)) + "×"
            + (keyBlock == AUTO_BLOCK ? "auto" : Integer.toString(keyBlock)) + "}";
    }
}
