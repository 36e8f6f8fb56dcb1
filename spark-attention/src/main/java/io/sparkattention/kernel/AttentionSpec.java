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
     * Default number of query rows per tile (Bq). A query block's rows share every key tile they
     * load (the Vector path copies each K and V tile once per block, a BLAS packs them once per
     * call), so larger blocks cut K/V traffic and per-call costs; a block is also the unit of
     * parallel work: 256 still gives 4 units per head at n = 1024, enough to balance 2 threads
     * over 16 heads. Measured on Zen 3 (AVX2, 32 KiB L1d, 512 KiB L2), 2 threads, 16 heads of 64,
     * every configuration round-robin in one JVM (BENCHMARKS.md, round 7): 256×256 tiles ran
     * 1.04–1.12× as fast as 128×128 at n = 512…4096 on the BLAS path and 1.09–1.10× on the Java
     * micro-kernels at 1024–2048 (medians of per-repetition ratios; at n = 256 on BLAS and 512 on
     * the Java path the ratio and the medians disagreed); causal 0.96× at n = 256–512 and
     * 1.02–1.05× at 1024–2048.
     */
    public static final int DEFAULT_QUERY_BLOCK = 256;

    /**
     * Default number of keys per tile (Bk). The score tile is Bq×Bk floats (264 KiB at 256×256 with its padded stride),
     * half the 512 KiB L2 (the whole scratch, 0.5 MiB, no longer fits it, and was faster all the
     * same); one strip of it (16 queries × 256 keys, 16 KiB) stays in L1 for the Vector kernels.
     * Each per-tile BLAS call is 2·Bq·Bk·d flops (8.4 MFLOP at d = 64), so its fixed costs (the
     * JNI call, packing the shared operand) weigh half as much as at 128×128, and a query row is
     * rescaled half as often. Bk = 128 and 512 with Bq = 256 measured within
     * ±5% of 256, neither ahead at every n (round 7).
     */
    public static final int DEFAULT_KEY_BLOCK = 256;

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
            DEFAULT_QUERY_BLOCK, DEFAULT_KEY_BLOCK);
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

    /** Sets the tile sizes (Bq query rows × Bk keys). */
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

    public int queryBlock() {
        return queryBlock;
    }

    public int keyBlock() {
        return keyBlock;
    }

    /**
     * Extra floats one call needs besides its inputs and outputs, whatever L and S:
     * {@code Bq'·Bk + 3·Bq + Bq·dv + Bq·d + Bk·(max(d, 64) + dv)}, with {@code Bq'} Bq padded by at most 15
     * ({@link Workspace#scoreStride}) (score tile, running max, sum and rescale
     * factor, output accumulator, packed query block, packed key tile with its rows padded to at least 64
     * floats, packed value tile).
     */
    public long scratchFloats(int headDim, int valueDim) {
        return (long) Workspace.scoreStride(queryBlock) * keyBlock + 3L * queryBlock + (long) queryBlock * valueDim
            + (long) queryBlock * headDim + (long) keyBlock * (Workspace.keyRow(headDim) + valueDim);
    }

    private static void checkWindowSide(String what, int side) {
        if (side < UNBOUNDED) {
            throw new IllegalArgumentException(what + " must be >= 0 or " + UNBOUNDED + " (unbounded), got " + side);
        }
    }

    private static void checkBlock(String what, int size) {
        if (size < 1 || size > MAX_BLOCK) {
            throw new IllegalArgumentException(what + " must be in [1, " + MAX_BLOCK + "], got " + size);
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
            + ", window=(" + windowLeft + ", " + windowRight + "), blocks=" + queryBlock + "×" + keyBlock + "}";
    }
}
