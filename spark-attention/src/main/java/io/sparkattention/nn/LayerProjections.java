package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

/**
 * A {@link MultiHeadAttentionLayer}'s projections, each weight prepared once for the projection
 * kernel ({@link LinearWeight#of}): the output projection and the fused [Wq; Wk; Wv] when the
 * layer is {@link MultiHeadAttentionLayer#fusable()} up front; the separate q, k and v (which a
 * fusable layer needs only for cross-attention) and the transposes the backward needs on first
 * use. Thread-safe: threads that start together may each prepare a weight once; they get equal
 * values, and the last one written is kept.
 */
final class LayerProjections {

    final LinearKernel kernel;
    final MultiHeadAttentionWeights w;
    final LinearWeight out;
    final LinearWeight qkv;
    private volatile LinearWeight q;
    private volatile LinearWeight k;
    private volatile LinearWeight v;
    private volatile LinearWeight outTransposed;
    private volatile LinearWeight qkvTransposed;

    LayerProjections(MultiHeadAttentionWeights w, LinearKernel kernel) {
        this.kernel = kernel;
        this.w = w;
        int E = w.embedDim();
        int kvDim = w.numKvHeads() * w.headDim();
        out = LinearWeight.of(kernel, w.outWeight(), E, E, w.outBias());
        qkv = w.kdim() == E && w.vdim() == E
            ? LinearWeight.of(kernel, fusedWeight(w), E + 2 * kvDim, E, fusedBias(w)) : null;
    }

    /** The query projection, E×E. */
    LinearWeight q() {
        LinearWeight t = q;
        if (t == null) {
            t = LinearWeight.of(kernel, w.qWeight(), w.embedDim(), w.embedDim(), w.qBias());
            q = t;
        }
        return t;
    }

    /** The key projection, kvDim×kdim. */
    LinearWeight k() {
        LinearWeight t = k;
        if (t == null) {
            t = LinearWeight.of(kernel, w.kWeight(), w.numKvHeads() * w.headDim(), w.kdim(), w.kBias());
            k = t;
        }
        return t;
    }

    /** The value projection, kvDim×vdim. */
    LinearWeight v() {
        LinearWeight t = v;
        if (t == null) {
            t = LinearWeight.of(kernel, w.vWeight(), w.numKvHeads() * w.headDim(), w.vdim(), w.vBias());
            v = t;
        }
        return t;
    }

    LinearWeight outTransposed() {
        LinearWeight t = outTransposed;
        if (t == null) {
            t = LinearWeight.transposeOf(kernel, w.outWeight(), w.embedDim(), w.embedDim());
            outTransposed = t;
        }
        return t;
    }

    LinearWeight qkvTransposed() {
        LinearWeight t = qkvTransposed;
        if (t == null) {
            int E = w.embedDim();
            t = LinearWeight.transposeOf(kernel, fusedWeight(w), E + 2 * w.numKvHeads() * w.headDim(), E);
            qkvTransposed = t;
        }
        return t;
    }

    private static float[] fusedWeight(MultiHeadAttentionWeights w) {
        return concat(w.qWeight(), w.kWeight(), w.vWeight());
    }

    /** [bq; bk; bv], a missing one as zeros (adding 0 keeps the bits); null when all three are missing. */
    private static float[] fusedBias(MultiHeadAttentionWeights w) {
        if (w.qBias() == null && w.kBias() == null && w.vBias() == null) {
            return null;
        }
        int E = w.embedDim(), kvDim = w.numKvHeads() * w.headDim();
        return concat(orZeros(w.qBias(), E), orZeros(w.kBias(), kvDim), orZeros(w.vBias(), kvDim));
    }

    private static float[] orZeros(float[] bias, int n) {
        return bias != null ? bias : new float[n];
    }

    private static float[] concat(float[] a, float[] b, float[] c) {
        float[] all = new float[a.length + b.length + c.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        System.arraycopy(c, 0, all, a.length + b.length, c.length);
        return all;
    }
}
