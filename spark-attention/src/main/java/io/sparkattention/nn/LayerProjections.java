package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

import java.util.function.Supplier;

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
    private final Lazy q;
    private final Lazy k;
    private final Lazy v;
    private final Lazy outTransposed;
    private final Lazy qkvTransposed;

    LayerProjections(MultiHeadAttentionWeights w, LinearKernel kernel) {
        this.kernel = kernel;
        this.w = w;
        int E = w.embedDim();
        int kvDim = w.numKvHeads() * w.headDim();
        out = LinearWeight.of(kernel, w.outWeight(), E, E, w.outBias());
        qkv = w.kdim() == E && w.vdim() == E
            ? LinearWeight.of(kernel, fusedWeight(w), E + 2 * kvDim, E, fusedBias(w)) : null;
        q = new Lazy(() -> LinearWeight.of(kernel, w.qWeight(), E, E, w.qBias()));
        k = new Lazy(() -> LinearWeight.of(kernel, w.kWeight(), kvDim, w.kdim(), w.kBias()));
        v = new Lazy(() -> LinearWeight.of(kernel, w.vWeight(), kvDim, w.vdim(), w.vBias()));
        outTransposed = new Lazy(() -> LinearWeight.transposeOf(kernel, w.outWeight(), E, E));
        qkvTransposed = new Lazy(() -> LinearWeight.transposeOf(kernel, fusedWeight(w), E + 2 * kvDim, E));
    }

    /** The query projection, E×E. */
    LinearWeight q() {
        return q.get();
    }

    /** The key projection, kvDim×kdim. */
    LinearWeight k() {
        return k.get();
    }

    /** The value projection, kvDim×vdim. */
    LinearWeight v() {
        return v.get();
    }

    /** Wₒ prepared as the weight of dy·Wₒ (the context's gradient), E×E. */
    LinearWeight outTransposed() {
        return outTransposed.get();
    }

    /** [Wq; Wk; Wv] prepared as the weight of dqkv·[Wq; Wk; Wv] (the input's gradient). */
    LinearWeight qkvTransposed() {
        return qkvTransposed.get();
    }

    /** A weight prepared on first use; racing threads may each prepare it, and the last one written is kept. */
    private static final class Lazy {
        private final Supplier<LinearWeight> prepare;
        private volatile LinearWeight value;

        Lazy(Supplier<LinearWeight> prepare) {
            this.prepare = prepare;
        }

        LinearWeight get() {
            LinearWeight t = value;
            if (t == null) {
                t = prepare.get();
                value = t;
            }
            return t;
        }
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
