package io.sparkattention.kernel;

/**
 * The softmax passes of one score tile, in the kernel's key-major strip layout.
 *
 * <p>A strip holds {@code w} queries; its scores are {@code s[c·lds + r]} for key {@code c < nk}
 * and query {@code r < w} ({@code lds ≥ w}), so every pass runs down the keys with the queries side by side in
 * the lanes: a row max or a row sum is a lane-wise max or sum, never a horizontal reduction.
 *
 * <p>Implementations: {@link ScalarSoftmax} ({@link Math#exp}, the reference) and
 * {@link VectorSoftmax} (the Vector API and {@link VectorExp}). Both are held to the float64
 * reference by the kernel tests.
 */
abstract class OnlineSoftmax {

    /**
     * Folds one key tile into the running softmax of a strip of {@code w} queries.
     *
     * <p>Per query: {@code m_new = max(m, max_c s)}; {@code s ← P = exp(s − m_new)};
     * {@code ℓ ← ℓ·α + Σ_c P} and {@code O ← O·α} with {@code α = exp(m − m_new)}; {@code m ← m_new}.
     * A query that has seen only masked keys (−∞) keeps {@code m = −∞}, {@code ℓ = 0} and gets
     * {@code P = 0}. NaN scores make {@code ℓ} (and so the output row) NaN.
     *
     * @param s      nk×w key-major scores {@code s[c·lds + r]}, replaced by P
     * @param m      running max, queries at {@code [off, off + w)}
     * @param l      running sum, same indices
     * @param alpha  scratch, same indices (what it holds on return is unspecified)
     * @param acc    the strip's w×dv accumulator, {@code acc[accOff + r·accQs + t·accCs]}, rescaled;
     *               one of the two strides is 1
     */
    abstract void update(int w, int lds, int nk, float[] s, float[] m, float[] l, float[] alpha, int off,
                         float[] acc, int accOff, int accQs, int accCs, int dv);

    /**
     * {@code s[c·lds + r] = exp(s[c·lds + r] − shift[off + r])}: weights from a log-sum-exp. A shift of
     * −∞ (a fully masked row) may be read as 0 or give NaN: callers skip such rows.
     */
    abstract void expMinus(int w, int lds, int nk, float[] s, float[] shift, int off);

    /** Short name, part of {@link TileOps#name()}. */
    abstract String name();

    /** {@link #update} for the single query {@code r} of the strip (the scalar reference and the lane tail). */
    static void updateLane(int r, int lds, int nk, float[] s, float[] m, float[] l, int off,
                           float[] acc, int accOff, int accQs, int accCs, int dv) {
        final float mOld = m[off + r];
        float mx = mOld;
        for (int c = 0, i = r; c < nk; c++, i += lds) {
            // "greater than" never picks NaN: a NaN score reaches ℓ through exp instead.
            if (s[i] > mx) {
                mx = s[i];
            }
        }
        final float shift = mx == Float.NEGATIVE_INFINITY ? 0f : mx;  // nothing visible yet: P = 0
        float sum = 0f;
        for (int c = 0, i = r; c < nk; c++, i += lds) {
            float e = (float) Math.exp(s[i] - shift);
            s[i] = e;
            sum += e;
        }
        final float alpha = (float) Math.exp(mOld - shift);           // 0 on the first visible tile
        l[off + r] = l[off + r] * alpha + sum;
        m[off + r] = mx;
        if (alpha != 1f) {
            for (int t = 0, i = accOff + r * accQs; t < dv; t++, i += accCs) {
                acc[i] *= alpha;
            }
        }
    }

    /** {@link #expMinus} for the single query {@code r}. */
    static void expMinusLane(int r, int lds, int nk, float[] s, float[] shift, int off) {
        final float x = shift[off + r];
        for (int c = 0, i = r; c < nk; c++, i += lds) {
            s[i] = (float) Math.exp(s[i] - x);
        }
    }
}
