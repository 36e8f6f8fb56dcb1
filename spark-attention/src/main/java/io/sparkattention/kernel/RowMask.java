package io.sparkattention.kernel;

/**
 * The per-sequence parts of a mask: key padding, a boolean mask and an additive bias.
 *
 * <p>Polarity follows {@code torch.nn.functional.scaled_dot_product_attention}: in the boolean
 * mask <b>true means "may attend"</b>. The boolean mask and the bias are row-major L×S (shared by
 * all heads) or H×L×S (one slice per head); the kernel reads them tile by tile and never builds
 * an L×S mask of its own. The bias is added after scaling and may hold {@code -inf}.
 */
public final class RowMask {

    /** No padding, no boolean mask, no bias. */
    public static final RowMask NONE = new RowMask(-1, null, null);

    private final int validKeys;
    private final boolean[] allowed;
    private final float[] bias;

    private RowMask(int validKeys, boolean[] allowed, float[] bias) {
        this.validKeys = validKeys;
        this.allowed = allowed;
        this.bias = bias;
    }

    /** A mask with only key padding: keys at positions ≥ {@code validKeys} are ignored. */
    public static RowMask keyLength(int validKeys) {
        return NONE.withKeyLength(validKeys);
    }

    /** Keys at positions ≥ {@code validKeys} are ignored; −1 means every key is valid. */
    public RowMask withKeyLength(int newValidKeys) {
        if (newValidKeys < -1) {
            throw new IllegalArgumentException("key length must be >= 0 (or -1 for none), got " + newValidKeys);
        }
        return new RowMask(newValidKeys, allowed, bias);
    }

    /** Boolean mask, row-major L×S or H×L×S, true = may attend; null for none. */
    public RowMask withAllowed(boolean[] newAllowed) {
        return new RowMask(validKeys, newAllowed, bias);
    }

    /** Additive bias, row-major L×S or H×L×S, added after scaling; null for none. */
    public RowMask withBias(float[] newBias) {
        return new RowMask(validKeys, allowed, newBias);
    }

    /** Number of valid keys, or −1 when there is no padding. */
    public int validKeys() {
        return validKeys;
    }

    public boolean[] allowed() {
        return allowed;
    }

    public float[] bias() {
        return bias;
    }

    /** Valid keys for a sequence of {@code keyLength} keys. */
    int validKeys(int keyLength) {
        return validKeys < 0 ? keyLength : validKeys;
    }

    /**
     * Checks the mask against a sequence's shape.
     *
     * @throws IllegalArgumentException naming the part of the mask that does not fit
     */
    void check(int numHeads, int queryLength, int keyLength) {
        if (validKeys > keyLength) {
            throw new IllegalArgumentException("key length " + validKeys + " exceeds the " + keyLength + " keys");
        }
        long plane = (long) queryLength * keyLength;
        if (allowed != null && allowed.length != plane && allowed.length != plane * numHeads) {
            throw new IllegalArgumentException("boolean mask has " + allowed.length + " values, expected L×S = "
                + queryLength + "×" + keyLength + " or H×L×S = " + numHeads + "×" + queryLength + "×" + keyLength);
        }
        if (bias != null && bias.length != plane && bias.length != plane * numHeads) {
            throw new IllegalArgumentException("additive bias has " + bias.length + " values, expected L×S = "
                + queryLength + "×" + keyLength + " or H×L×S = " + numHeads + "×" + queryLength + "×" + keyLength);
        }
    }

    /** Offset of head {@code h}'s L×S slice in an L×S or H×L×S array. */
    static int headOffset(int length, int h, int queryLength, int keyLength) {
        int plane = queryLength * keyLength;
        return length == plane ? 0 : h * plane;
    }
}
