package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * Unmasked multi-head self-attention of one short sequence straight from a fused projection
 * {@code [q | k | v]} (L×3E, E = H·d), without tiles: per head the whole L×L score matrix,
 * its softmax and the product with V. For the encoder's sequences (tens of tokens, at most a
 * model's 512 positions) this does the work of the tiled kernel ({@link FlashAttention}) without
 * its per-tile bookkeeping, and reads q, k and v where the fused projection left them.
 *
 * <pre>
 *   for each head h (columns [h·d, (h+1)·d) of q, k and v):
 *     P = softmax_rows(scale · q_h · k_hᵀ)        L×L, rows = queries
 *     ctx[:, h·d : (h+1)·d] = P · v_h              L×d
 * </pre>
 * With the Vector API ({@code jdk.incubator.vector} visible) the scores are computed key-major
 * with the queries across the lanes and exponentiated by the tile kernel's exp
 * ({@link VectorExp}); otherwise plain loops compute the same in float32 with {@link Math#exp}.
 * Either way a row's result depends on that row alone (no batch), and one JVM always takes the
 * same path.
 */
public final class DirectAttention {

    private static final Logger LOG = LoggerFactory.getLogger(DirectAttention.class);

    /** The Vector API path, or null when the module is not visible (by name, so this class links without it). */
    private static final Impl VECTOR = vector();

    private DirectAttention() {
    }

    /** One thread's scratch, grown to the longest sequence and widest head seen; not thread-safe. */
    public static final class Workspace {
        float[] queriesT = new float[0];
        float[] scores = new float[0];
        float[] values = new float[0];
        float[] rowMax = new float[0];
        float[] rowSum = new float[0];

        void ensure(int lp, int dp, int L) {
            if (queriesT.length < dp * lp) {
                queriesT = new float[dp * lp];
            }
            if (scores.length < L * lp) {
                scores = new float[L * lp];
            }
            if (values.length < L * dp) {
                values = new float[L * dp];
            }
            if (rowMax.length < lp) {
                rowMax = new float[lp];
                rowSum = new float[lp];
            }
        }
    }

    /** The arithmetic behind {@link #selfAttention}; arguments already checked. */
    abstract static class Impl {
        abstract void run(float[] qkv, int qkvOff, int L, int H, int d, float scale, float[] ctx, int ctxOff,
                          float[] probs, Workspace ws);
    }

    /**
     * Self-attention of one sequence.
     *
     * @param qkv   L×3E row-major, {@code [q | k | v]} per row, E = H·d
     * @param L     sequence length ≥ 0
     * @param H     heads ≥ 1
     * @param d     columns per head ≥ 1
     * @param scale score scale, usually 1/√d
     * @param ctx   L×E, written: the heads' outputs side by side
     * @param probs H×L×L ({@code [h][query][key]}) attention probabilities, written, or null
     * @param ws    the calling thread's scratch
     */
    public static void selfAttention(float[] qkv, int L, int H, int d, float scale, float[] ctx, float[] probs,
                                     Workspace ws) {
        selfAttention(qkv, 0, L, H, d, scale, ctx, 0, probs, ws);
    }

    /**
     * {@link #selfAttention(float[], int, int, int, float, float[], float[], Workspace)} of a
     * sequence whose rows start at {@code qkvOff} in {@code qkv} and are written from
     * {@code ctxOff} in {@code ctx} (one sequence of several stacked in the same arrays).
     */
    public static void selfAttention(float[] qkv, int qkvOff, int L, int H, int d, float scale, float[] ctx,
                                     int ctxOff, float[] probs, Workspace ws) {
        Objects.requireNonNull(qkv, "qkv");
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(ws, "ws");
        if (L < 0 || H < 1 || d < 1) {
            throw new IllegalArgumentException("bad shape L=" + L + ", H=" + H + ", d=" + d);
        }
        long E = (long) H * d;
        if (qkvOff < 0 || ctxOff < 0 || qkv.length - (long) qkvOff < 3 * E * L || ctx.length - (long) ctxOff < E * L) {
            throw new IllegalArgumentException("qkv has " + qkv.length + " values from " + qkvOff + " and ctx "
                + ctx.length + " from " + ctxOff + ", expected at least " + L + "×" + 3 * E + " and " + L + "×" + E);
        }
        if (probs != null && probs.length != (long) H * L * L) {
            throw new IllegalArgumentException("probs has " + probs.length + " values, expected " + H + "×" + L + "×"
                + L);
        }
        if (L == 0) {
            return;
        }
        if (VECTOR != null) {
            VECTOR.run(qkv, qkvOff, L, H, d, scale, ctx, ctxOff, probs, ws);
        } else {
            scalar(qkv, qkvOff, L, H, d, scale, ctx, ctxOff, probs, ws);
        }
    }

    /** The name of the path in use, for logs and benchmarks. */
    public static String implementation() {
        return VECTOR != null ? "vector" : "scalar";
    }

    /** Plain loops: per head and query, scores, a max-shifted softmax in float32, the weighted sum of values. */
    static void scalar(float[] qkv, int qkvOff, int L, int H, int d, float scale, float[] ctx, int ctxOff,
                       float[] probs, Workspace ws) {
        int E = H * d, row = 3 * E;
        ws.ensure(L, 1, L);
        float[] p = ws.scores;
        for (int h = 0; h < H; h++) {
            int qOff = qkvOff + h * d, kOff = qkvOff + E + h * d, vOff = qkvOff + 2 * E + h * d;
            for (int i = 0; i < L; i++) {
                float max = Float.NEGATIVE_INFINITY;
                for (int c = 0; c < L; c++) {
                    float s = 0;
                    for (int t = 0; t < d; t++) {
                        s += qkv[i * row + qOff + t] * qkv[c * row + kOff + t];
                    }
                    p[c] = s * scale;
                    max = Math.max(max, p[c]);
                }
                float sum = 0;
                for (int c = 0; c < L; c++) {
                    p[c] = (float) Math.exp(p[c] - max);
                    sum += p[c];
                }
                float inv = 1f / sum;
                for (int t = 0; t < d; t++) {
                    float acc = 0;
                    for (int c = 0; c < L; c++) {
                        acc += p[c] * qkv[c * row + vOff + t];
                    }
                    ctx[ctxOff + i * E + h * d + t] = acc * inv;
                }
                if (probs != null) {
                    for (int c = 0; c < L; c++) {
                        probs[(h * L + i) * L + c] = p[c] * inv;
                    }
                }
            }
        }
    }

    private static Impl vector() {
        try {
            return (Impl) Class.forName("io.sparkattention.kernel.VectorDirectAttention").getDeclaredConstructor()
                .newInstance();
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            LOG.debug("VectorDirectAttention unavailable: {}", noVectorApi.toString());
            return null;
        }
    }
}
