package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.kernel.Workspace;

/**
 * What {@link MultiHeadAttentionLayer#selfForward} keeps of M stacked rows for
 * {@link MultiHeadAttentionLayer#selfBackward}, and the backward's scratch; grown to the most
 * rows seen, reused from call to call. One per thread (not thread-safe).
 *
 * <pre>
 *   qkv      M × (E + 2·Ekv)   the fused projection [q | k | v] per row (Ekv = numKvHeads·d)
 *   context  M × E             the heads' outputs side by side, before the output projection
 *   lse      H·M               per sequence r, an H×L block from H·starts[r]: log-sum-exp per head and query
 *   dContext M × E, dqkv M × (E + 2·Ekv)   backward only
 * </pre>
 */
public final class SelfAttentionRecord {

    float[] qkv = new float[0];
    float[] context = new float[0];
    float[] lse = new float[0];
    float[] dContext = new float[0];
    float[] dqkv = new float[0];
    final Workspace workspace = new Workspace();
    private WeightGradient weightGradient;

    /** This thread's weight-gradient products on {@code kernel}. */
    WeightGradient weightGradient(LinearKernel kernel) {
        if (weightGradient == null || weightGradient.kernel() != kernel) {
            weightGradient = new WeightGradient(kernel);
        }
        return weightGradient;
    }

    /** The fused projection of the last forward: M × (E + 2·Ekv), row-major. */
    public float[] qkv() {
        return qkv;
    }

    /** The heads' outputs of the last forward, before the output projection: M × E. */
    public float[] context() {
        return context;
    }

    /** The last forward's log-sum-exp: sequence r's H×L block from H·starts[r]. */
    public float[] lse() {
        return lse;
    }

    /** The attention kernel's scratch, for calls the owner makes on the same thread. */
    public Workspace workspace() {
        return workspace;
    }

    void ensure(int rows, int E, int fused, int H) {
        qkv = atLeast(qkv, rows * fused);
        context = atLeast(context, rows * E);
        lse = atLeast(lse, rows * H);
    }

    void ensureBackward(int rows, int E, int fused) {
        dContext = atLeast(dContext, rows * E);
        dqkv = atLeast(dqkv, rows * fused);
    }

    private static float[] atLeast(float[] a, int n) {
        return a.length >= n ? a : new float[n];
    }
}
