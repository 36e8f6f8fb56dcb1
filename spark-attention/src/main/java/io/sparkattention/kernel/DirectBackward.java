package io.sparkattention.kernel;

import java.util.Arrays;

/**
 * The backward pass of {@link DirectAttention}: per head the whole probability matrix P,
 * recomputed from the forward's log-sum-exp with the forward's masks, then FlashAttention-2's
 * formulas on whole matrices. For short rows only ({@link AttentionPath}): its scratch is two
 * S×Lp matrices.
 *
 * <pre>
 *   per head h (key/value head kv):
 *     P   = exp(scale·k_kv·q_hᵀ + biasᵀ, masked − lse_h)      S × Lp   (0 where masked, or the row sees no key)
 *     dP  = v_kv · dO_hᵀ                                       S × Lp
 *     D[j] = Σ_t dO_h[j, t] · O_h[j, t]                        L
 *     dS  = P ∘ (dP − D)                                       S × Lp
 *     dV_kv += P · dO_h          dK_kv += scale · dS · q_h     S × dv, S × d (query heads of a group add in head order)
 *     dQ_h   = scale · dSᵀ · k_kv                              L × d
 *     dBias_h = dSᵀ  (per head), or Σ_h dSᵀ in head order (shared L×S)
 * </pre>
 * Arguments are checked by {@link FlashAttention#backward}.
 */
final class DirectBackward {

    private DirectBackward() {
    }

    static void run(DirectAttention.Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                    MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff, MatrixView dOut,
                    MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias, DirectAttention.Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dvh = shape.valueDim();
        dk.zero(S, Hkv * d);
        dv.zero(S, Hkv * dvh);
        dq.zero(L, H * d);
        if (dBias != null) {
            Arrays.fill(dBias, 0f);
        }
        if (L == 0 || S == 0) {
            return;
        }
        int lp = impl.padded(L);
        ws.ensure(lp, S, impl.padded(Math.max(d, dvh)));
        ws.ensureGrad(lp, S);
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys());
        float scale = spec.scaleFor(d);
        float[] p = ws.scores, ds = ws.gradScores, shift = ws.rowMax, rowDot = ws.rowSum;
        boolean biasPerHead = dBias != null && dBias.length != L * S;
        for (int h = 0; h < H; h++) {
            int kv = shape.kvHeadOf(h);
            int qo = q.offset() + h * d, ko = k.offset() + kv * d, vo = v.offset() + kv * dvh;
            int oo = out.offset() + h * dvh, go = dOut.offset() + h * dvh;
            int dqo = dq.offset() + h * d, dko = dk.offset() + kv * d, dvo = dv.offset() + kv * dvh;
            DirectAttention.maskedScores(impl, band, scale, shape, h, q, k, mask, p, lp, ws);
            System.arraycopy(lse, lseOff + h * L, shift, 0, L);
            Arrays.fill(shift, L, lp, 0f);
            impl.exp(p, lp, L, S, shift, null, true);
            impl.scores(dOut.data(), go, dOut.ld(), L, v.data(), vo, v.ld(), S, dvh, 1f, ds, ws);
            for (int j = 0; j < L; j++) {
                float dot = 0f;
                for (int t = 0, a = oo + j * out.ld(), b = go + j * dOut.ld(); t < dvh; t++) {
                    dot += out.data()[a + t] * dOut.data()[b + t];
                }
                rowDot[j] = dot;
            }
            for (int c = 0; c < S; c++) {
                int row = c * lp;
                int vRow = dvo + c * dv.ld(), kRow = dko + c * dk.ld();
                for (int j = 0; j < L; j++) {
                    float pj = p[row + j];
                    if (pj == 0f) {
                        ds[row + j] = 0f;
                        continue;
                    }
                    float g = pj * (ds[row + j] - rowDot[j]);
                    ds[row + j] = g;
                    axpy(pj, dOut.data(), go + j * dOut.ld(), dv.data(), vRow, dvh);
                    axpy(scale * g, q.data(), qo + j * q.ld(), dk.data(), kRow, d);
                }
            }
            for (int j = 0; j < L; j++) {
                int qRow = dqo + j * dq.ld();
                for (int c = 0; c < S; c++) {
                    float g = ds[c * lp + j];
                    if (g != 0f) {
                        axpy(scale * g, k.data(), ko + c * k.ld(), dq.data(), qRow, d);
                    }
                }
            }
            if (dBias != null) {
                int base = biasPerHead ? h * L * S : 0;
                for (int j = 0; j < L; j++) {
                    for (int c = 0; c < S; c++) {
                        dBias[base + j * S + c] += ds[c * lp + j];
                    }
                }
            }
        }
    }

    /** {@code y[yOff + t] += a · x[xOff + t]} for t &lt; n. */
    private static void axpy(float a, float[] x, int xOff, float[] y, int yOff, int n) {
        for (int t = 0; t < n; t++) {
            y[yOff + t] += a * x[xOff + t];
        }
    }
}
