package io.sparkattention.kernel;

/**
 * The arithmetic of one tile: the two products and the softmax row passes.
 *
 * <p>Everything here is an inner loop: arguments were checked by the public entry points of
 * {@link FlashAttention}, so implementations do not check them again. Matrices are row-major
 * views {@code (array, offset, leading dimension)}.
 *
 * <p>The implementation is chosen once per JVM by {@link #get()}; every implementation is tested
 * against the same float64 reference.
 */
public abstract class TileOps {

    /** Scores of a tile: {@code s[r·lds + c] = scale · Σₜ q[r, t]·k[c, t]} for r < bq, c < bk. */
    abstract void scores(int bq, int bk, int d, float scale,
                         float[] q, int qOff, int ldq,
                         float[] k, int kOff, int ldk,
                         float[] s, int lds);

    /** Accumulates {@code acc[r, t] += Σ_c p[r, c]·v[c, t]} for r < bq, t < dv. */
    abstract void accumulate(int bq, int bk, int dv,
                             float[] p, int ldp,
                             float[] v, int vOff, int ldv,
                             float[] acc, int ldacc);

    /** Largest of {@code x[off, off + n)}; NaN if any is NaN; −∞ for n = 0. */
    float max(float[] x, int off, int n) {
        float m = Float.NEGATIVE_INFINITY;
        for (int i = off, end = off + n; i < end; i++) {
            m = Math.max(m, x[i]);
        }
        return m;
    }

    /** {@code x[i] = exp(x[i] − shift)} over {@code [off, off + n)}; returns the sum of the new values. */
    float expShiftSum(float[] x, int off, int n, float shift) {
        float sum = 0f;
        for (int i = off, end = off + n; i < end; i++) {
            float e = (float) Math.exp(x[i] - shift);
            x[i] = e;
            sum += e;
        }
        return sum;
    }

    /** {@code x[i] *= alpha} over {@code [off, off + n)}. */
    void scale(float[] x, int off, int n, float alpha) {
        for (int i = off, end = off + n; i < end; i++) {
            x[i] *= alpha;
        }
    }

    /** Human-readable name, reported by {@code bench} and logged at start-up. */
    public abstract String name();

    /** The implementation in use (see {@link TileOpsChoice}). */
    public static TileOps get() {
        return TileOpsChoice.INSTANCE;
    }
}
