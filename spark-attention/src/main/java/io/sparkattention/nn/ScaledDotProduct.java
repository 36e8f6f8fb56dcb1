package io.sparkattention.nn;

import io.sparkattention.kernel.Heads;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;

import java.util.Objects;

/**
 * Scaled dot-product attention with no projections: the query's last dimension is split into
 * {@code numHeads} heads and the key's and value's into {@code numKvHeads} heads (PyTorch's
 * column layout: columns {@code [h·d, (h+1)·d)} are head {@code h}).
 */
public final class ScaledDotProduct implements SequenceAttention {

    private static final long serialVersionUID = 1L;

    private final FlashAttention kernel;
    private final int numHeads;
    private final int numKvHeads;
    private final int queryWidth;
    private final int keyWidth;
    private final int valueWidth;

    /**
     * @param queryWidth values per query row (H·d)
     * @param keyWidth   values per key row (Hkv·d)
     * @param valueWidth values per value row (Hkv·dv)
     * @throws IllegalArgumentException when the heads do not divide the widths
     */
    public ScaledDotProduct(FlashAttention kernel, int numHeads, int numKvHeads,
                            int queryWidth, int keyWidth, int valueWidth) {
        this.kernel = Objects.requireNonNull(kernel, "kernel");
        Heads.checkGroups(numHeads, numKvHeads);
        Heads.headDim(queryWidth, numHeads, "numHeads", "the query width");
        Heads.headDim(keyWidth, numKvHeads, "numKvHeads", "the key width");
        Heads.headDim(valueWidth, numKvHeads, "numKvHeads", "the value width");
        if (queryWidth / numHeads != keyWidth / numKvHeads) {
            throw new IllegalArgumentException("query head dimension " + queryWidth / numHeads + " (" + queryWidth + "/"
                + numHeads + ") differs from key head dimension " + keyWidth / numKvHeads + " (" + keyWidth + "/"
                + numKvHeads + ")");
        }
        this.numHeads = numHeads;
        this.numKvHeads = numKvHeads;
        this.queryWidth = queryWidth;
        this.keyWidth = keyWidth;
        this.valueWidth = valueWidth;
    }

    @Override
    public FlashAttention kernel() {
        return kernel;
    }

    @Override
    public int outputWidth() {
        return numHeads * (valueWidth / numKvHeads);
    }

    @Override
    public PreparedSequence prepare(float[] query, int queryLength, float[] key, float[] value, int keyLength,
                                    RowMask mask) {
        AttentionShape shape = new AttentionShape(queryLength, keyLength, numHeads, numKvHeads,
            queryWidth / numHeads, valueWidth / numKvHeads);
        return new PreparedSequence(shape, query, key, value, mask);
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        return attended;
    }
}
