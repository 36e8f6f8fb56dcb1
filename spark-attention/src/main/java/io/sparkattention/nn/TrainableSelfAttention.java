package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;

/**
 * PyTorch's {@code nn.MultiheadAttention} self-attention of one sequence at one parameter vector,
 * with the backward pass to its weights (laid out as {@link AttentionClassifierNetwork#parameters()}):
 * {@link MultiHeadAttentionLayer#selfForward} and {@link MultiHeadAttentionLayer#selfBackward} on
 * a layer over the vector's weights, prepared once for the parameter vector this object is made
 * for, so inference, the stages and training share one forward.
 * <pre>
 *   forward:   [q | k | v] = x·[W_q; W_k; W_v]ᵀ + b_in               (n×3E, one GEMM)
 *              o, lse = attention(q, k, v)  (direct or tiled by n)    (n×E, H×n)
 *              a = o·W_oᵀ + b_o                                       (n×E)
 *   backward:  dW_o += daᵀ·o,  db_o += Σ da,  do = da·W_o
 *              [dq | dk | dv] = attention'(do)
 *              dW_in += [dq | dk | dv]ᵀ·x (one product),  db_in += Σ [dq | dk | dv]
 * </pre>
 * Not thread-safe.
 */
final class TrainableSelfAttention {

    private final MultiHeadAttentionLayer layer;
    private final GradientSlots slots;
    private final SelfAttentionRecord record = new SelfAttentionRecord();
    private final int[] starts = new int[2];

    /**
     * @param theta        the flat parameter vector (read here, not kept)
     * @param linearKernel the projection kernel of the forward and backward products
     */
    TrainableSelfAttention(AttentionClassifierNetwork net, float[] theta, LinearKernel linearKernel) {
        int e = net.embedDim();
        this.layer = new MultiHeadAttentionLayer(net.attentionWeights(theta), net.kernel(), linearKernel);
        this.slots = GradientSlots.packed(e, e, net.parameter(AttentionClassifierNetwork.IN_PROJ_WEIGHT).offset(),
            net.parameter(AttentionClassifierNetwork.IN_PROJ_BIAS).offset(),
            net.parameter(AttentionClassifierNetwork.OUT_PROJ_WEIGHT).offset(),
            net.parameter(AttentionClassifierNetwork.OUT_PROJ_BIAS).offset());
    }

    /**
     * {@code a = MultiheadAttention(x, x, x)}, keeping what {@link #backward} needs.
     *
     * @param x n×E (first n rows read)
     * @param a at least n×E, its first n rows written
     */
    void forward(float[] x, int n, float[] a) {
        starts[1] = n;
        layer.selfForward(x, starts, 1, record, a, null);
    }

    /**
     * The attention's parameter gradients for the sequence of the last {@link #forward}, added
     * into {@code g} at the parameters' offsets.
     *
     * @param x  the input of the last forward
     * @param da n×E, the gradient of a (its first n rows read)
     */
    void backward(float[] x, int n, float[] da, float[] g) {
        starts[1] = n;
        layer.selfBackward(x, starts, 1, record, da, null, g, slots);
    }
}
