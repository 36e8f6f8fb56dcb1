package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.List;

/**
 * Attention of one short sequence without tiles: per head the whole score matrix, its softmax and
 * the product with V. For short rows (the encoder's tens of tokens; {@link AttentionPath} sends
 * every call of at most {@value AttentionPath#DIRECT_MAX_LENGTH} queries and keys here) this does
 * the tiled kernel's work ({@link FlashAttention}) without its per-tile bookkeeping.
 *
 * <pre>
 *   per head h (key/value head kv = h / (H/Hkv)):
 *     sT = scale · k_kv · q_hᵀ + biasᵀ, masked to −∞      S × Lp, key-major (queries side by side)
 *     m[j] = max_c sT[c][j];  ℓ[j] = Σ_c exp(sT[c][j] − m[j]);  lse[h][j] = m[j] + log ℓ[j]
 *     out[j, h·dv : (h+1)·dv] = Σ_c exp(sT[c][j] − m[j]) · v_kv[c] / ℓ[j]
 * </pre>
 * The masks are {@link Masking}'s, applied to the whole S×L score matrix as to a tile, so they
 * mean what they mean on the tiled path: causal (either alignment), window, key padding, boolean
 * mask and additive bias, L×S or H×L×S. A query that sees no key gets output 0 and log-sum-exp
 * −∞, never NaN. Q, K, V and the output are {@link MatrixView}s: the columns of a fused
 * {@code [q | k | v]} projection are read where it left them, the output written into place.
 * The backward pass is {@link DirectBackward}.
 *
 * <p>Arithmetic: the Java Vector API ({@code VectorDirectAttention}: queries across the lanes,
 * the tile kernel's exp) or plain loops with {@link Math#exp}, chosen once per JVM through
 * {@link ImplementationChoice} (system property {@value #PROPERTY}: {@code auto}, the Vector API
 * when visible; {@code vector}; {@code scalar}). Either way a head's result depends on that
 * head's inputs alone.
 *
 * <p>Scratch: the score matrix S·Lp (and in the backward a second one) per call, reused across
 * calls through the thread's {@link Workspace}.
 */
public final class DirectAttention {

    /** System property that forces the arithmetic: {@code auto}, {@code vector} or {@code scalar}. */
    public static final String PROPERTY = "sparkattention.direct";

    static final ImplementationChoice<Impl> CHOICE = new ImplementationChoice<>("direct attention arithmetic",
        PROPERTY, List.of("auto", "vector", "scalar"), DirectAttention::make);

    /** The JVM's arithmetic. */
    static final Impl IMPL = CHOICE.choose(Impl::name);

    private DirectAttention() {
    }

    /** One thread's scratch, grown to the longest sequence and widest head seen; not thread-safe. */
    public static final class Workspace {
        float[] queriesT = new float[0];
        float[] scores = new float[0];
        float[] gradScores = new float[0];
        /** The backward's P∘M (the probabilities after dropout), S·Lp. */
        float[] dropped = new float[0];
        float[] values = new float[0];
        float[] rowMax = new float[0];
        float[] rowSum = new float[0];
        float[] stage = new float[64];

        /** Room for Lp padded queries, S keys and heads of dp padded columns. */
        void ensure(int lp, int S, int dp) {
            if (queriesT.length < dp * lp) {
                queriesT = new float[dp * lp];
            }
            if (scores.length < S * lp) {
                scores = new float[S * lp];
            }
            if (values.length < S * dp) {
                values = new float[S * dp];
            }
            if (rowMax.length < lp) {
                rowMax = new float[lp];
                rowSum = new float[lp];
            }
        }

        /** The backward pass's second score matrix (dP) and its probabilities after dropout. */
        void ensureGrad(int lp, int S) {
            if (gradScores.length < S * lp) {
                gradScores = new float[S * lp];
                dropped = new float[S * lp];
            }
        }
    }

    /** The arithmetic; arguments already checked, inner loops only. */
    abstract static class Impl {

        /** Queries padded to the implementation's vector length: the score matrix's row stride. */
        abstract int padded(int L);

        /**
         * {@code sT[c·lp + j] = scale · Σ_t k[kOff + c·ldk + t] · q[qOff + j·ldq + t]} for keys
         * c &lt; S and queries j &lt; L (and 0 for the padding queries up to lp).
         */
        abstract void scores(float[] q, int qOff, int ldq, int L, float[] k, int kOff, int ldk, int S, int d,
                             float scale, float[] sT, Workspace ws);

        /**
         * {@code sT[c·lp + j] = exp(sT[c·lp + j] − shift[j])} for c &lt; S and j &lt; lp, with a shift of
         * −∞ taken as 0; adds each column's sum into {@code sum[j]} when it is not null. With
         * {@code capHigh} arguments may be positive (a shift that is a log-sum-exp).
         */
        abstract void exp(float[] sT, int lp, int L, int S, float[] shift, float[] sum, boolean capHigh);

        /** {@code max[j] = max_c sT[c·lp + j]} for j &lt; lp, −∞ without keys (S = 0). */
        abstract void columnMax(float[] sT, int lp, int S, float[] max);

        /**
         * {@code out[oOff + j·ldo + t] = inv[j] · Σ_c sT[c·lp + j] · v[vOff + c·ldv + t]} for j &lt; L,
         * t &lt; dv.
         */
        abstract void values(float[] sT, int lp, int L, int S, float[] v, int vOff, int ldv, int dv, float[] inv,
                             float[] out, int oOff, int ldo, Workspace ws);

        /**
         * {@code out[oOff + c·ldo + t] += alpha · Σ_j sT[c·lp + j] · b[bOff + j·ldb + t]} for keys c &lt; S,
         * t &lt; n, the sum over queries j &lt; L: the backward's dV and dK products. May use the
         * workspace's transposed-query buffer, whose scores are computed by then.
         */
        abstract void rowsTimes(float[] sT, int lp, int L, int S, float[] b, int bOff, int ldb, int n, float alpha,
                                float[] out, int oOff, int ldo, Workspace ws);

        abstract String name();
    }

    private static Impl make(String name) {
        Impl vector = "scalar".equals(name) ? null
            : ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorDirectAttention", Impl.class);
        if ("vector".equals(name)) {
            return ImplementationChoice.requireVector(vector, "direct attention arithmetic");
        }
        return vector != null ? vector : new ScalarDirectAttention();
    }

    /** The name of the arithmetic in use, for logs and benchmarks. */
    public static String implementation() {
        return IMPL.name();
    }

    /**
     * The forward pass of one sequence on {@code impl}, arguments checked by the caller.
     *
     * @param q       L rows of H·d columns (head h: columns from h·d)
     * @param k       S rows of Hkv·d columns
     * @param v       S rows of Hkv·dv columns
     * @param out     L rows of H·dv columns, written
     * @param lse     H×L log-sum-exp from {@code lseOff}, written; or null
     * @param weights attention probabilities, H×L×S ({@code perHead}) or their mean over heads L×S,
     *                written; or null
     */
    static void forward(Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                        MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff, float[] weights,
                        boolean perHead, Workspace ws) {
        forward(impl, spec, shape, q, k, v, mask, out, lse, lseOff, weights, perHead, null, ws);
    }

    /**
     * {@link #forward(Impl, AttentionSpec, AttentionShape, MatrixView, MatrixView, MatrixView, RowMask,
     * MatrixView, float[], int, float[], boolean, Workspace)} with {@code dropout} on the
     * probabilities before {@code P·V} (null: none); the weights and the log-sum-exp are the
     * undropped softmax's.
     */
    static void forward(Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                        MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff, float[] weights,
                        boolean perHead, ProbabilityDropout dropout, Workspace ws) {
        if (weights != null) {
            Arrays.fill(weights, 0f);
        }
        heads(impl, spec, shape, q, k, v, mask, out, lse, lseOff, weights, perHead, dropout, 0, shape.numHeads(),
            ws);
    }

    /**
     * {@link #forward} of heads {@code [h0, h1)} only, adding into {@code weights} (zeroed by the
     * caller) when given: a head's output and log-sum-exp depend on that head alone, so heads may
     * run on different threads (without weights) and give the same bits.
     */
    static void heads(Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                      MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff, float[] weights,
                      boolean perHead, ProbabilityDropout dropout, int h0, int h1, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads();
        int d = shape.headDim(), dv = shape.valueDim();
        if (L == 0) {
            return;
        }
        int lp = impl.padded(L);
        ws.ensure(lp, S, impl.padded(Math.max(d, dv)));
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys());
        float scale = spec.scaleFor(d);
        float[] sT = ws.scores, max = ws.rowMax, sum = ws.rowSum;
        for (int h = h0; h < h1; h++) {
            int kv = shape.kvHeadOf(h);
            maskedScores(impl, band, scale, shape, h, q, k, mask, sT, lp, ws);
            impl.columnMax(sT, lp, S, max);
            Arrays.fill(sum, 0, lp, 0f);
            impl.exp(sT, lp, L, S, max, sum, false);
            for (int j = 0; j < L; j++) {
                boolean none = max[j] == Float.NEGATIVE_INFINITY;
                if (lse != null) {
                    lse[lseOff + h * L + j] = none ? Float.NEGATIVE_INFINITY : max[j] + (float) Math.log(sum[j]);
                }
                sum[j] = none ? 0f : 1f / sum[j];
            }
            if (weights != null) {  // before the dropout: the weights are the softmax's
                addWeights(sT, lp, L, S, sum, perHead ? 1f : 1f / H, weights, perHead ? h * L * S : 0);
            }
            if (dropout != null) {
                ProbabilityDropout.apply(dropout, h, 0, 0, sT, lp, L, S);
            }
            impl.values(sT, lp, L, S, v.data(), v.offset() + kv * dv, v.ld(), dv, sum, out.data(),
                out.offset() + h * dv, out.ld(), ws);
        }
    }

    /**
     * Attention probabilities {@code exp(scores − lse)} recomputed from a forward pass's
     * log-sum-exp: H×L×S per head, or their mean over heads L×S. Masked entries and fully masked
     * rows are 0. Arguments checked by the caller.
     */
    static void weights(Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                        RowMask mask, float[] lse, int lseOff, boolean perHead, float[] weights, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), d = shape.headDim();
        Arrays.fill(weights, 0f);
        if (L == 0) {
            return;
        }
        int lp = impl.padded(L);
        ws.ensure(lp, S, impl.padded(d));
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys());
        float[] sT = ws.scores, shift = ws.rowMax, ones = ws.rowSum;
        Arrays.fill(ones, 0, lp, 1f);
        for (int h = 0; h < H; h++) {
            maskedScores(impl, band, spec.scaleFor(d), shape, h, q, k, mask, sT, lp, ws);
            System.arraycopy(lse, lseOff + h * L, shift, 0, L);
            Arrays.fill(shift, L, lp, 0f);
            impl.exp(sT, lp, L, S, shift, null, true);
            addWeights(sT, lp, L, S, ones, perHead ? 1f : 1f / H, weights, perHead ? h * L * S : 0);
        }
    }

    /** Head h's masked scores into {@code sT} (S × lp, key-major). */
    static void maskedScores(Impl impl, KeyBand band, float scale, AttentionShape shape, int h, MatrixView q,
                             MatrixView k, RowMask mask, float[] sT, int lp, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), d = shape.headDim();
        impl.scores(q.data(), q.offset() + h * d, q.ld(), L, k.data(), k.offset() + shape.kvHeadOf(h) * d, k.ld(), S,
            d, scale, sT, ws);
        MaskView allowed = MaskView.headPlane(mask.allowed(), h, L, S, 0);
        MatrixView bias = MatrixView.headPlane(mask.bias(), h, L, S, 0);
        Masking.apply(sT, L, lp, S, band, 0, 0, allowed.data(), allowed.offset(), allowed.ld(), bias.data(),
            bias.offset(), bias.ld());
    }

    /** {@code w[off + j·S + c] += factor · sT[c][j] · inv[j]}. */
    private static void addWeights(float[] sT, int lp, int L, int S, float[] inv, float factor, float[] w, int off) {
        for (int j = 0; j < L; j++) {
            float f = inv[j] * factor;
            int row = off + j * S;
            for (int c = 0; c < S; c++) {
                w[row + c] += sT[c * lp + j] * f;
            }
        }
    }
}
