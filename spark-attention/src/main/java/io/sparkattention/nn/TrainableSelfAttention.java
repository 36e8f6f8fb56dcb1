package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.kernel.Workspace;

/**
 * PyTorch's {@code nn.MultiheadAttention} self-attention of one sequence at one parameter vector,
 * with the backward pass to its weights (laid out as {@link AttentionClassifierNetwork#parameters()}):
 * <pre>
 *   forward:   q = x·W_qᵀ + b_q,  k = x·W_kᵀ + b_k,  v = x·W_vᵀ + b_v        (n×E each)
 *              o, lse = FlashAttention(q, k, v)                              (n×E, H×n)
 *              a = o·W_oᵀ + b_o                                              (n×E)
 *   backward:  dW_o += daᵀ·o,  db_o += Σ da,  do = da·W_o
 *              dq, dk, dv = FlashAttention.backward(do)
 *              dW_{q,k,v} += d{q,k,v}ᵀ·x,  db_{q,k,v} += Σ d{q,k,v}
 * </pre>
 * The forward pass is inference's: the projections of a {@link MultiHeadAttentionLayer} over the
 * same weights, prepared once for the parameter vector this object is made for. The backward's
 * products run on the same projection kernel: {@code do = da·W_o} on W_o's prepared transpose,
 * the weight gradients through {@link WeightGradient}.
 *
 * <p>The attention kernel wants arrays of exactly one sequence's size, so the buffers are kept
 * for the last length seen and remade when it changes. Not thread-safe.
 */
final class TrainableSelfAttention {

    private final int embedDim;
    private final int numHeads;
    private final FlashAttention kernel;
    private final MultiHeadAttentionLayer layer;
    /** W_o prepared for {@code do = da·W_o}. */
    private final LinearWeight outTransposed;
    private final WeightGradient weightGradient;
    private final Workspace ws = new Workspace();
    private final int inWeight;
    private final int inBias;
    private final int outWeight;
    private final int outBias;

    private int length = -1;
    private AttentionShape shape;
    private float[] q;
    private float[] k;
    private float[] v;
    private float[] o;
    private float[] lse;
    private float[] dOut;
    private float[] dq;
    private float[] dk;
    private float[] dv;

    /**
     * @param theta        the flat parameter vector (read here, not kept)
     * @param linearKernel the projection kernel of the forward and backward products
     */
    TrainableSelfAttention(AttentionClassifierNetwork net, float[] theta, LinearKernel linearKernel) {
        this.embedDim = net.embedDim();
        this.numHeads = net.numHeads();
        this.kernel = net.kernel();
        MultiHeadAttentionWeights weights = net.attentionWeights(theta);
        this.layer = new MultiHeadAttentionLayer(weights, kernel, linearKernel);
        this.outTransposed = LinearWeight.transposeOf(linearKernel, weights.outWeight(), embedDim, embedDim);
        this.weightGradient = new WeightGradient(linearKernel);
        this.inWeight = net.parameter(AttentionClassifierNetwork.IN_PROJ_WEIGHT).offset();
        this.inBias = net.parameter(AttentionClassifierNetwork.IN_PROJ_BIAS).offset();
        this.outWeight = net.parameter(AttentionClassifierNetwork.OUT_PROJ_WEIGHT).offset();
        this.outBias = net.parameter(AttentionClassifierNetwork.OUT_PROJ_BIAS).offset();
    }

    private void ensure(int n) {
        if (n == length) {
            return;
        }
        int size = n * embedDim;
        shape = AttentionShape.self(n, numHeads, embedDim / numHeads);
        q = new float[size];
        k = new float[size];
        v = new float[size];
        o = new float[size];
        lse = new float[numHeads * n];
        dOut = new float[size];
        dq = new float[size];
        dk = new float[size];
        dv = new float[size];
        length = n;
    }

    /**
     * {@code a = MultiheadAttention(x, x, x)}, keeping q, k, v, o and lse for {@link #backward}.
     *
     * @param x n×E (first n rows read)
     * @param a at least n×E, its first n rows written
     */
    void forward(float[] x, int n, float[] a) {
        ensure(n);
        layer.projectSelf(x, n, q, k, v);
        kernel.forward(shape, q, k, v, RowMask.NONE, o, lse, ws);
        layer.finish(o, n, a);
    }

    /**
     * The attention's parameter gradients for the sequence of the last {@link #forward}, added
     * into {@code g} at the parameters' offsets.
     *
     * @param x  the input of the last forward
     * @param da n×E, the gradient of a (its first n rows read)
     */
    void backward(float[] x, int n, float[] da, float[] g) {
        int e = embedDim, e2 = e * e;
        weightGradient.accumulate(n, e, e, da, o, g, outWeight);
        Linear.addBiasGradient(n, e, da, g, outBias);
        outTransposed.apply(da, n, dOut);
        kernel.backward(shape, q, k, v, RowMask.NONE, o, lse, dOut, dq, dk, dv, null, ws);
        weightGradient.accumulate(n, e, e, dq, x, g, inWeight);
        weightGradient.accumulate(n, e, e, dk, x, g, inWeight + e2);
        weightGradient.accumulate(n, e, e, dv, x, g, inWeight + 2 * e2);
        Linear.addBiasGradient(n, e, dq, g, inBias);
        Linear.addBiasGradient(n, e, dk, g, inBias + e);
        Linear.addBiasGradient(n, e, dv, g, inBias + 2 * e);
    }
}
