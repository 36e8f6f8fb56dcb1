package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

/**
 * PyTorch's {@code nn.MultiheadAttention} self-attention of one sequence, with the backward pass
 * to its weights. Parameters are read from a flat vector laid out as
 * {@link AttentionClassifierNetwork#parameters()}:
 * <pre>
 *   forward:   q = x·W_qᵀ + b_q,  k = x·W_kᵀ + b_k,  v = x·W_vᵀ + b_v        (L×E each)
 *              o, lse = FlashAttention(q, k, v)                              (L×E, H×L)
 *              a = o·W_oᵀ + b_o                                              (L×E)
 *   backward:  dW_o = daᵀ·o,  db_o = Σ da,  do = da·W_o
 *              dq, dk, dv = FlashAttention.backward(do)
 *              dW_{q,k,v} = d{q,k,v}ᵀ·x,  db_{q,k,v} = Σ d{q,k,v}
 * </pre>
 * The kernel wants arrays of exactly one sequence's size, so the buffers are kept for the last
 * length seen and remade when it changes. Not thread-safe.
 */
final class TrainableSelfAttention {

    private final int embedDim;
    private final int numHeads;
    private final FlashAttention kernel;
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

    TrainableSelfAttention(AttentionClassifierNetwork net) {
        this.embedDim = net.embedDim();
        this.numHeads = net.numHeads();
        this.kernel = net.kernel();
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
     * @param theta the flat parameter vector
     * @param x     n×E (first n rows read)
     * @param a     at least n×E, its first n rows written
     */
    void forward(float[] theta, float[] x, int n, float[] a) {
        ensure(n);
        int e = embedDim, e2 = e * e;
        Linear.forward(n, e, e, x, 0, theta, inWeight, theta, inBias, q);
        Linear.forward(n, e, e, x, 0, theta, inWeight + e2, theta, inBias + e, k);
        Linear.forward(n, e, e, x, 0, theta, inWeight + 2 * e2, theta, inBias + 2 * e, v);
        kernel.forward(shape, q, k, v, RowMask.NONE, o, lse, ws);
        Linear.forward(n, e, e, o, 0, theta, outWeight, theta, outBias, a);
    }

    /**
     * The attention's parameter gradients for the sequence of the last {@link #forward}, written
     * (not added) into {@code g} at the parameters' offsets.
     *
     * @param da n×E, the gradient of a (its first n rows read)
     */
    void backward(float[] theta, float[] x, int n, float[] da, float[] g) {
        int e = embedDim, e2 = e * e;
        Linear.weightGradient(n, e, e, da, o, 0, g, outWeight);
        Linear.biasGradient(n, e, da, g, outBias);
        Linear.inputGradient(n, e, e, da, theta, outWeight, dOut);
        kernel.backward(shape, q, k, v, RowMask.NONE, o, lse, dOut, dq, dk, dv, null, ws);
        Linear.weightGradient(n, e, e, dq, x, 0, g, inWeight);
        Linear.weightGradient(n, e, e, dk, x, 0, g, inWeight + e2);
        Linear.weightGradient(n, e, e, dv, x, 0, g, inWeight + 2 * e2);
        Linear.biasGradient(n, e, dq, g, inBias);
        Linear.biasGradient(n, e, dk, g, inBias + e);
        Linear.biasGradient(n, e, dv, g, inBias + 2 * e);
    }
}
