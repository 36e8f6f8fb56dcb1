package io.sparkattention.ml;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.ScaledDotProduct;
import io.sparkattention.nn.SequenceAttention;

/**
 * Scaled dot-product attention has no weights: each row's layer is built from its widths.
 * A row with no query or no key rows has no width to read; the query's (or the key's) stands in,
 * so that such a row's output is L rows of zeros of the query's width.
 */
final class ScaledDotProductSource implements LayerSource {

    private static final long serialVersionUID = 1L;

    private final FlashAttention kernel;
    private final int numHeads;
    private final int numKvHeads;

    ScaledDotProductSource(AttentionSpec spec, int numHeads, int numKvHeads) {
        this.kernel = new FlashAttention(spec);
        this.numHeads = numHeads;
        this.numKvHeads = numKvHeads;
    }

    @Override
    public SequenceAttention layer(int queryWidth, int keyWidth, int valueWidth) {
        int q = queryWidth > 0 ? queryWidth : keyWidth > 0 ? keyWidth / numKvHeads * numHeads : numHeads;
        int k = keyWidth > 0 ? keyWidth : q / numHeads * numKvHeads;
        int v = valueWidth > 0 ? valueWidth : k;
        return new ScaledDotProduct(kernel, numHeads, numKvHeads, q, k, v);
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        return attended;
    }
}
