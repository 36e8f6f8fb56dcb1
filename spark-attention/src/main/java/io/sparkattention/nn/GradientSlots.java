package io.sparkattention.nn;

/**
 * Where a multi-head attention layer's parameter gradients go in a flat gradient vector: the
 * offset of each tensor (PyTorch layout, {@link MultiHeadAttentionWeights}), −1 for an absent
 * bias. With the three input weights one after the other (PyTorch's {@code in_proj_weight}) the
 * layer computes their gradient in one product.
 */
public record GradientSlots(int qWeight, int kWeight, int vWeight, int qBias, int kBias, int vBias,
                            int outWeight, int outBias) {

    /**
     * PyTorch's packed layout: {@code in_proj_weight} [Wq; Wk; Wv] from {@code inWeight},
     * {@code in_proj_bias} from {@code inBias} (−1: none), {@code out_proj}'s weight and bias.
     *
     * @param embedDim E
     * @param kvDim    Ekv = numKvHeads·headDim (E without grouped heads)
     */
    public static GradientSlots packed(int embedDim, int kvDim, int inWeight, int inBias, int outWeight,
                                       int outBias) {
        int kw = inWeight + embedDim * embedDim;
        int vw = kw + kvDim * embedDim;
        return new GradientSlots(inWeight, kw, vw, inBias, inBias < 0 ? -1 : inBias + embedDim,
            inBias < 0 ? -1 : inBias + embedDim + kvDim, outWeight, outBias);
    }
}
