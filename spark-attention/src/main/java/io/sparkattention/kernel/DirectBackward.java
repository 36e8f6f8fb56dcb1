package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;

/**
 * The backward pass of {@link DirectAttention}: per head the whole probability matrix P,
 * recomputed from the forward's log-sum-exp with the forward's masks, then FlashAttention-2's
 * formulas on whole matrices. For short rows only ({@link AttentionPath}): its scratch is two
 * S×Lp matrices.
 *
 * <pre>
 *   per head h (key/value head kv):
 *     P   = exp(scale·k_kv·q_hᵀ + biasᵀ, masked − lse_h)      S × Lp   (0 where masked, or the row sees no key)
 *     dP  = v_kv · dO_hᵀ  (∘ M, the dropout's factors, if any)     S × Lp
 *     D[j] = Σ_t dO_h[j, t] · O_h[j, t]                        L
 *     dS  = P ∘ (dP − D)                                       S × Lp
 *     dV_kv += (P∘M) · dO_h      dK_kv += scale · dS · q_h     S × dv, S × d (query heads of a group add in head order)
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
                    MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias, ProbabilityDropout dropout,
                    DirectAttention.Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dvh = shape.valueDim();
        dk.zero(S, Hkv * d);
        dv.zero(S, Hkv * dvh);
        dq.zero(L, H * d);
        if (dBias != null) {
            Arrays.fill(dBias, 0f);
        }
        heads(impl, spec, shape, q, k, v, mask, out, lse, lseOff, dOut, dq, dk, dv, dBias, dropout, 0, H, ws);
    }

    /**
     * {@link #run} with its groups of heads ({@link #groups}) on {@code pool}'s threads: each
     * group writes its own dK, dV, dQ columns and dBias planes, so the bits are the sequential call's.
     */
    static void run(DirectAttention.Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q, MatrixView k,
                    MatrixView v, RowMask mask, MatrixView out, float[] lse, MatrixView dOut, MatrixView dq,
                    MatrixView dk, MatrixView dv, float[] dBias, ForkJoinPool pool) {
        int groups = groups(shape, dBias), per = shape.numHeads() / groups;
        dq.zero(shape.queryLength(), shape.numHeads() * shape.headDim());
        dk.zero(shape.keyLength(), shape.numKvHeads() * shape.headDim());
        dv.zero(shape.keyLength(), shape.numKvHeads() * shape.valueDim());
        if (dBias != null) {
            Arrays.fill(dBias, 0f);
        }
        ParallelUnits.run(pool, groups, ws -> { }, (g, ws) -> heads(impl, spec, shape, q, k, v, mask, out, lse, 0,
            dOut, dq, dk, dv, dBias, null, g * per, (g + 1) * per, ws.direct()));
    }

    /**
     * Units a parallel call may run at once, each {@link #heads} of one group: the query heads of
     * one key/value head (they alone add into its dK and dV), or all heads when dBias is one L×S
     * plane that every head adds into.
     */
    static int groups(AttentionShape shape, float[] dBias) {
        boolean shared = dBias != null && shape.numHeads() > 1
            && dBias.length != shape.numHeads() * shape.queryLength() * shape.keyLength();
        return shared ? 1 : shape.numKvHeads();
    }

    /**
     * The gradients of query heads {@code [h0, h1)}, added into dK, dV and dBias and written into
     * their dQ columns; the caller zeroed the gradients. Heads in order, so a group on its own
     * gives the bits of the whole call.
     */
    static void heads(DirectAttention.Impl impl, AttentionSpec spec, AttentionShape shape, MatrixView q,
                      MatrixView k, MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff,
                      MatrixView dOut, MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias,
                      ProbabilityDropout dropout, int h0, int h1, DirectAttention.Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength();
        int d = shape.headDim(), dvh = shape.valueDim();
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
        for (int h = h0; h < h1; h++) {
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
            float[] dropped = dropout == null ? p : ws.dropped;
            for (int c = 0; c < S; c++) {
                int row = c * lp;
                for (int j = 0; j < L; j++) {
                    float pj = p[row + j];
                    if (dropout == null) {
                        ds[row + j] = pj * (ds[row + j] - rowDot[j]);
                    } else {  // dP∘M, and P∘M for dV
                        float m = dropout.factor(h, j, c);
                        ds[row + j] = pj * (ds[row + j] * m - rowDot[j]);
                        dropped[row + j] = pj * m;
                    }
                }
            }
            impl.rowsTimes(dropped, lp, L, S, dOut.data(), go, dOut.ld(), dvh, 1f, dv.data(), dvo, dv.ld(), ws);
            impl.rowsTimes(ds, lp, L, S, q.data(), qo, q.ld(), d, scale, dk.data(), dko, dk.ld(), ws);
            // dQ_h = scale · dSᵀ · k: the forward's P·V product with dS for P and scale for 1/ℓ.
            Arrays.fill(shift, 0, L, scale);
            impl.values(ds, lp, L, S, k.data(), ko, k.ld(), d, shift, dq.data(), dqo, dq.ld(), ws);
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
}
