package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

/**
 * A {@link MultiHeadAttentionLayer}'s projections, each weight prepared once for the projection
 * kernel ({@link LinearWeight#of}): the four of PyTorch's module, the fused [Wq; Wk; Wv] when the
 * layer is {@link MultiHeadAttentionLayer#fusable()}, and the transposes the backward needs,
 * prepared on first use. Thread-safe.
 */
final class LayerProjections {

    final LinearKernel kernel;
    final MultiHeadAttentionWeights w;
    final LinearWeight q;
    final LinearWeight k;
    final LinearWeight v;
    final LinearWeight out;
    final LinearWeight qkv;
    private volatile LinearWeight outTransposed;
    private volatile LinearWeight qkvTransposed;

    LayerProjections(MultiHeadAttentionWeights w, LinearKernel kernel) {
        this.kernel = kernel;
        this.w = w;
        int E = w.embedDim();
        int kvDim = w.numKvHeads() * w.headDim();
        q = LinearWeight.of(kernel, w.qWeight(), E, E, w.qBias());
        k = LinearWeight.of(kernel, w.kWeight(), kvDim, w.kdim(), w.kBias());
        v = LinearWeight.of(kernel, w.vWeight(), kvDim, w.vdim(), w.vBias());
        out = LinearWeight.of(kernel, w.outWeight(), E, E, w.outBias());
        qkv = w.kdim() == E && w.vdim() == E
            ? LinearWeight.of(kernel, fusedWeight(w), E + 2 * kvDim, E, fusedBias(w)) : null;
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
