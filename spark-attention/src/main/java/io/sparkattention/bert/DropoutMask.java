package io.sparkattention.bert;

import io.sparkattention.kernel.ProbabilityDropout;
import io.sparkattention.nn.CounterRandom;

/**
 * Dropout masks from a counter-based generator: whether element e of site s is kept for row r at
 * step t of a run seeded σ is a pure function of (σ, t, r, s, e), so a mask does not depend on
 * the partition, thread, order or retry that computes it, and the backward pass regenerates
 * exactly the forward's mask instead of storing it.
 *
 * <p>The draw is {@link CounterRandom}'s: (σ, t, r, s) mixed into a site key, element e's
 * uniform u in [0, 1) from {@code key + e·γ}; the element is kept when {@code u ≥ p}
 * (probability 1 − p). Kept values are scaled by
 * {@code 1/(1 − p)} (inverted dropout), so inference needs no rescaling.
 *
 * <p>Sites ({@link #site}): {@link #EMBEDDINGS} (the embeddings' output, L×E), per layer n the
 * attention probabilities (H×L×L, element {@code (h·L + i)·L + j}, {@link #probabilities}), the attention output and the
 * feed-forward output before their residuals (L×E each), and {@link #POOLED} (the pooled E-vector
 * before the head). Elements are row-major indices within the site's tensor.
 */
public final class DropoutMask {

    /** The embeddings' output. */
    public static final int EMBEDDINGS = 0;
    /** The pooled vector before the head. */
    public static final int POOLED = Integer.MAX_VALUE;
    /** Kind of a layer's site: the attention probabilities. */
    public static final int ATTENTION_PROBS = 0;
    /** Kind of a layer's site: the attention output projection, before its residual. */
    public static final int ATTENTION_OUTPUT = 1;
    /** Kind of a layer's site: the feed-forward output projection, before its residual. */
    public static final int FEED_FORWARD_OUTPUT = 2;

    private final long key;
    private final double p;
    /** {@link CounterRandom#atLeast}(p): element e is kept when its 53 bits reach it. */
    private final long threshold;
    private final float scale;

    private DropoutMask(long key, double p) {
        this.key = key;
        this.p = p;
        this.threshold = CounterRandom.atLeast(p);
        this.scale = (float) (1.0 / (1.0 - p));
    }

    /** Site of kind {@code kind} ({@link #ATTENTION_PROBS}, …) in layer {@code layer}: {@code 1 + 3·layer + kind}. */
    public static int site(int layer, int kind) {
        return 1 + 3 * layer + kind;
    }

    /**
     * The mask of one (seed, step, row, site) at drop probability p.
     *
     * @throws IllegalArgumentException when p is not in [0, 1)
     */
    public static DropoutMask of(long seed, long step, long rowKey, int site, double p) {
        if (!(p >= 0 && p < 1)) {
            throw new IllegalArgumentException("dropout p must be in [0, 1), got " + p);
        }
        return new DropoutMask(CounterRandom.key(seed, step, rowKey, site), p);
    }

    /** The drop probability. */
    public double p() {
        return p;
    }

    /** The factor of a kept element, {@code 1/(1 − p)}. */
    public float scale() {
        return scale;
    }

    /** Whether element {@code e} is kept: {@code CounterRandom.uniform(key, e) >= p}, compared as integers. */
    public boolean keeps(long e) {
        return CounterRandom.bits(key + e * CounterRandom.GOLDEN_GAMMA) >= threshold;
    }

    /** The element's factor: {@link #scale()} when kept, 0 when dropped. */
    public float factor(long e) {
        return keeps(e) ? scale : 0f;
    }

    /**
     * {@code x[off + i] *= factor(first + i)} for i &lt; n: the mask applied to a run of
     * consecutive elements (forward), or to their gradient (backward; the same factors).
     */
    public void apply(float[] x, int off, int n, long first) {
        // Element first + i's counter, key + (first + i)·γ, stepped by γ (the same wrapping sum).
        long z = key + first * CounterRandom.GOLDEN_GAMMA;
        for (int i = 0; i < n; i++, z += CounterRandom.GOLDEN_GAMMA) {
            x[off + i] *= CounterRandom.bits(z) >= threshold ? scale : 0f;
        }
    }

    /**
     * This mask as the attention kernel's dropout of one sequence's probabilities (L queries, S
     * keys per head): (head h, query i, key j) is element {@code (h·L + i)·S + j}, the
     * {@link #ATTENTION_PROBS} site's row-major index.
     *
     * @throws IllegalArgumentException when L or S is negative
     */
    public ProbabilityDropout probabilities(int L, int S) {
        if (L < 0 || S < 0) {
            throw new IllegalArgumentException("probabilities need L, S >= 0, got " + L + ", " + S);
        }
        return (h, i, j) -> factor(((long) h * L + i) * S + j);
    }
}
