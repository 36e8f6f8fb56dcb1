package io.sparkattention.kernel;

import java.util.Arrays;

/**
 * The backward pass of one head over a view of queries and keys (FlashAttention-2's, from the
 * forward's saved log-sum-exp), as a {@link StripVisitor} of the {@link TileWalk}, so it visits
 * exactly the forward's tiles and skips the same masked ones. Per query block: {@code D = rowsum(dO∘O)} and a zeroed dQ accumulator;
 * per strip of w queries × nk keys:
 * <pre>
 *   (1) S  = scale·Q·Kᵀ + bias, masked          nk×w key-major
 *   (2) P  = exp(S − lse)                       nk×w   (0 on rows with lse = −∞)
 *   (3) dV += Pᵀ·dO                             nk×dv     ((P∘M)ᵀ·dO with dropout's factors M)
 *   (4) dP = dO·Vᵀ                              nk×w      (∘ M)
 *   (5) dS = P∘(dP − D)                         nk×w, in place of P; dBias += dS
 *   (6) dQ += dS·K                              w×d  (the block's accumulator)
 *   (7) dK += scale·dSᵀ·Q                       nk×d
 * </pre>
 * and at the block's end {@code dQ += scale·accumulator}. dQ, dK, dV and dBias are added into
 * the caller's arrays (zeroed by the caller): a key/value head's dK and dV sum its query heads in
 * head order, a query's dQ sums the key ranges the caller walks in ascending order, a shared L×S
 * dBias sums the heads in head order.
 *
 * <p>Shapes: q, dq rows×d; k, dk keys×d; v, dv keys×dv; out, dOut rows×dv; lse rows; allowed,
 * bias, dBias rows×keys or absent. Scratch: {@link Workspace#ensureBackward}, already grown for the blocks.
 */
final class BackwardPass extends StripVisitor {

    private final TileOps ops;
    private final OnlineSoftmax softmax;
    private final Workspace ws;
    private final float scale;
    private final int d, dv, accQs;
    private final MatrixView q, out, dOut, dq, dk, dV, dBias;
    private final MaskedScores scores;
    private final KeyValueTile tile;
    private final float[] lse;
    private final int lseOff;
    /** Dropout on P, or null; the head and the view's first query and key it is asked about. */
    private final ProbabilityDropout dropout;
    private final int head, q0, k0;

    // the current block and tile
    private int i0, bq;
    private float alphaDo;

    /**
     * @param q0     global position of the view's first query
     * @param k0     global position of the view's first key
     * @param lseOff index in {@code lse} of the view's first query
     */
    BackwardPass(TileOps ops, Workspace ws, KeyBand band, float scale, int d, int dv, long q0, long k0,
                 MatrixView q, MatrixView k, MatrixView v, MaskView allowed, MatrixView bias,
                 MatrixView out, float[] lse, int lseOff, MatrixView dOut,
                 MatrixView dq, MatrixView dk, MatrixView dV, MatrixView dBias, ProbabilityDropout dropout,
                 int head) {
        this.ops = ops;
        this.softmax = ops.softmax();
        this.ws = ws;
        this.scale = scale;
        this.d = d;
        this.dv = dv;
        this.accQs = ops.accQueryStride(d);
        this.q = q;
        this.scores = new MaskedScores(ops, ws, band, scale, d, q0, k0, q, allowed, bias);
        this.tile = new KeyValueTile(ops, ws, k, v, d, dv, Workspace.keyRow(dv));
        this.out = out;
        this.lse = lse;
        this.lseOff = lseOff;
        this.dOut = dOut;
        this.dq = dq;
        this.dk = dk;
        this.dV = dV;
        this.dBias = dBias;
        this.dropout = dropout;
        this.head = head;
        this.q0 = (int) q0;
        this.k0 = (int) k0;
    }

    /**
     * Packs the block's Q and dO (for the products, and as contiguous rows), and per row the exp
     * shift (lse, or +∞ on a fully masked row so that its P is 0) and {@code D = Σ_t dO·O}.
     */
    @Override
    void beginBlock(int i0, int bq, boolean visible) {
        this.i0 = i0;
        this.bq = bq;
        Arrays.fill(ws.gradQuery, 0, bq * d, 0f);
        scores.beginBlock(i0, bq, visible);
        if (!visible) {
            return;
        }
        alphaDo = ops.packQueries(bq, dv, 1f, dOut.data(), dOut.at(i0, 0), dOut.ld(), ws.gradOut);
        Workspace.packRows(bq, d, q.data(), q.at(i0, 0), q.ld(), ws.queryRows, d);
        Workspace.packRows(bq, dv, dOut.data(), dOut.at(i0, 0), dOut.ld(), ws.gradOutRows, dv);
        final float[] shift = ws.rowMax, delta = ws.rowSum, o = out.data(), g = ws.gradOutRows;
        for (int r = 0; r < bq; r++) {
            final float x = lse[lseOff + i0 + r];
            shift[r] = x == Float.NEGATIVE_INFINITY ? Float.POSITIVE_INFINITY : x;
            final int oi = out.at(i0 + r, 0), gi = r * dv;
            float sum = 0f;
            for (int t = 0; t < dv; t++) {
                sum += g[gi + t] * o[oi + t];
            }
            delta[r] = sum;
        }
    }

    /** The tile's K and V rows; V rows are padded like K's when packed, as dP = dO·Vᵀ reads them like keys. */
    @Override
    void beginTile(int j0, int j1) {
        tile.load(j0, j1);
    }

    @Override
    void strip(int r0, int w, int c0, int c1) {
        final int nk = c1 - c0, lds = ops.scoreStride(w), row = i0 + r0;
        final float[] s = ws.scores, dp = ws.gradScores;
        final KeyValueTile t = tile;
        // (1) S = (scale·Q)·Kᵀ, bias and masks   (nk×w, key-major)
        scores.strip(r0, w, c0, nk, lds, t.k, t.kOff + c0 * t.ldk, t.ldk);
        // (2) P = exp(S − lse)
        softmax.expMinus(w, lds, nk, s, ws.rowMax, r0);
        final float[] delta = ws.rowSum;
        if (dropout == null) {
            // (3) dV += Pᵀ·dO   (nk×dv)
            ops.accumulateKeys(w, nk, dv, 1f, s, lds, ws.gradOutRows, r0 * dv, dv, dV.data(), dV.at(c0, 0), dV.ld());
            // (4) dP = dO·Vᵀ   (nk×w, key-major)
            ops.scores(w, nk, dv, alphaDo, ws.gradOut, r0 * dv, t.v, t.vOff + c0 * t.ldv, t.ldv, dp, lds);
            // (5) dS = P∘(dP − D), in place of P
            for (int c = 0; c < nk; c++) {
                final int i = c * lds;
                for (int r = 0; r < w; r++) {
                    s[i + r] *= dp[i + r] - delta[r0 + r];
                }
            }
        } else {
            dropoutStrip(r0, w, c0, nk, lds, s, dp, delta);
        }
        if (dBias.present()) {
            addBiasGradient(s, w, lds, nk, row, c0);
        }
        // (6) dQ += dS·K   (w×d, the block's accumulator in the tile implementation's layout)
        ops.accumulate(w, nk, d, s, lds, t.k, t.kOff + c0 * t.ldk, t.ldk, ws.gradQuery, ops.accOffset(r0, bq, d),
            ops.accColumnStride(w, bq));
        // (7) dK += scale·dSᵀ·Q   (nk×d)
        ops.accumulateKeys(w, nk, d, scale, s, lds, ws.queryRows, r0 * d, d, dk.data(), dk.at(c0, 0), dk.ld());
    }

    /**
     * Steps (3)–(5) with dropout's factors M: dP = (dO·Vᵀ)∘M, dS = P∘(dP − D) (D from the dropped
     * output, so the identity D = rowsum(P∘dP) holds), dV += (P∘M)ᵀ·dO; dS ends in place of P as
     * without dropout.
     */
    private void dropoutStrip(int r0, int w, int c0, int nk, int lds, float[] s, float[] dp, float[] delta) {
        final KeyValueTile t = tile;
        ops.scores(w, nk, dv, alphaDo, ws.gradOut, r0 * dv, t.v, t.vOff + c0 * t.ldv, t.ldv, dp, lds);
        final int i0q = q0 + i0 + r0, j0 = k0 + c0;
        for (int c = 0; c < nk; c++) {
            final int i = c * lds;
            for (int r = 0; r < w; r++) {
                final float m = dropout.factor(head, i0q + r, j0 + c), p = s[i + r];
                final float g = p * (dp[i + r] * m - delta[r0 + r]);
                s[i + r] = p * m;
                dp[i + r] = g;
            }
        }
        ops.accumulateKeys(w, nk, dv, 1f, s, lds, ws.gradOutRows, r0 * dv, dv, dV.data(), dV.at(c0, 0), dV.ld());
        System.arraycopy(dp, 0, s, 0, (nk - 1) * lds + w);
    }

    /** {@code dBias[row + r, c0 + c] += dS[c, r]}. */
    private void addBiasGradient(float[] s, int w, int lds, int nk, int row, int c0) {
        final float[] g = dBias.data();
        for (int r = 0; r < w; r++) {
            final int dst = dBias.at(row + r, c0);
            for (int c = 0; c < nk; c++) {
                g[dst + c] += s[c * lds + r];
            }
        }
    }

    /** dQ += scale·accumulator, for every row of the block (0 where no key is visible). */
    @Override
    void endBlock() {
        final float[] g = dq.data(), acc = ws.gradQuery;
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = ops.strip(bq - r0, false);
            final int a = ops.accOffset(r0, bq, d), accCs = ops.accColumnStride(w, bq);
            for (int r = 0; r < w; r++) {
                final int dst = dq.at(i0 + r0 + r, 0), ar = a + r * accQs;
                for (int t = 0; t < d; t++) {
                    g[dst + t] += scale * acc[ar + t * accCs];
                }
            }
        }
    }
}
