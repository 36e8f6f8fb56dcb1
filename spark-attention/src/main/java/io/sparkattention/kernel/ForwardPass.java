package io.sparkattention.kernel;

import java.util.Arrays;

/**
 * The forward pass of one head over a view of queries and keys, as a {@link StripVisitor} of the
 * {@link TileWalk}: per block, a running row max {@code m}, sum {@code ℓ} and unnormalised output
 * {@code O} (the online softmax); per strip, scores, masks, the softmax update and {@code O += P·V};
 * at the block's end {@code O /= ℓ} and {@code lse = m + log ℓ}.
 *
 * <p>Shapes: q rows×d, k keys×d, v keys×dv, out rows×dv, lse rows; allowed and bias rows×keys or
 * absent. Scratch: the {@link Workspace}, already grown for the blocks.
 */
final class ForwardPass extends StripVisitor {

    private final TileOps ops;
    private final OnlineSoftmax softmax;
    private final Workspace ws;
    private final int dv, accQs;
    private final MatrixView out;
    private final MaskedScores scores;
    private final KeyValueTile tile;
    private final float[] lse;
    private final int lseOff;
    /** Dropout on P before P·V, or null; the head and the view's first query and key it is asked about. */
    private final ProbabilityDropout dropout;
    private final int head, q0, k0;

    // the current block and tile
    private int i0, bq;

    /**
     * @param q0  global position of the view's first query
     * @param k0  global position of the view's first key
     * @param lse log-sum-exp per query at {@code lse[lseOff + row]}, written; null to skip
     * @param dropout the probabilities' dropout (of head {@code head}, queries and keys numbered
     *                from q0 and k0), or null
     */
    ForwardPass(TileOps ops, Workspace ws, KeyBand band, float scale, int d, int dv, long q0, long k0,
                MatrixView q, MatrixView k, MatrixView v, MaskView allowed, MatrixView bias,
                MatrixView out, float[] lse, int lseOff, ProbabilityDropout dropout, int head) {
        this.ops = ops;
        this.softmax = ops.softmax();
        this.ws = ws;
        this.dv = dv;
        this.accQs = ops.accQueryStride(dv);
        this.scores = new MaskedScores(ops, ws, band, scale, d, q0, k0, q, allowed, bias);
        this.tile = new KeyValueTile(ops, ws, k, v, d, dv, dv);
        this.out = out;
        this.lse = lse;
        this.lseOff = lseOff;
        this.dropout = dropout;
        this.head = head;
        this.q0 = (int) q0;
        this.k0 = (int) k0;
    }

    @Override
    void beginBlock(int i0, int bq, boolean visible) {
        this.i0 = i0;
        this.bq = bq;
        Arrays.fill(ws.rowMax, 0, bq, Float.NEGATIVE_INFINITY);
        Arrays.fill(ws.rowSum, 0, bq, 0f);
        Arrays.fill(ws.acc, 0, bq * dv, 0f);
        scores.beginBlock(i0, bq, visible);
    }

    @Override
    void beginTile(int j0, int j1) {
        tile.load(j0, j1);
    }

    @Override
    void strip(int r0, int w, int c0, int c1) {
        final int nk = c1 - c0, lds = ops.scoreStride(w);
        final float[] s = ws.scores;
        final KeyValueTile t = tile;
        // (1), (2) S = (scale·Q)·Kᵀ, bias and masks   (nk×w, key-major, keys lds apart)
        scores.strip(r0, w, c0, nk, lds, t.k, t.kOff + c0 * t.ldk, t.ldk);
        // (3) online softmax: P = exp(S − m_new), ℓ and O rescaled by exp(m_old − m_new)
        final int accOff = ops.accOffset(r0, bq, dv), accCs = ops.accColumnStride(w, bq);
        softmax.update(w, lds, nk, s, ws.rowMax, ws.rowSum, ws.rowScale, r0, ws.acc, accOff, accQs, accCs, dv);
        if (dropout != null) {  // P∘M: ℓ above is the undropped sum
            ProbabilityDropout.apply(dropout, head, q0 + i0 + r0, k0 + c0, s, lds, w, nk);
        }
        // (4) O += P·Vⱼ   (w×dv)
        ops.accumulate(w, nk, dv, s, lds, t.v, t.vOff + c0 * t.ldv, t.ldv, ws.acc, accOff, accCs);
    }

    /** O /= ℓ, lse = m + log ℓ; rows that saw no key: 0 and −∞. */
    @Override
    void endBlock() {
        final float[] o = out.data(), acc = ws.acc, m = ws.rowMax, l = ws.rowSum;
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = ops.strip(bq - r0, false);
            final int a = ops.accOffset(r0, bq, dv), accCs = ops.accColumnStride(w, bq);
            for (int r = 0; r < w; r++) {
                final int row = i0 + r0 + r;
                final int dst = out.at(row, 0);
                final float sum = l[r0 + r];
                if (sum == 0f) {
                    Arrays.fill(o, dst, dst + dv, 0f);
                    if (lse != null) {
                        lse[lseOff + row] = Float.NEGATIVE_INFINITY;
                    }
                    continue;
                }
                final float inv = 1f / sum;
                final int ar = a + r * accQs;
                if (accCs == 1) {  // a row per query: a loop C2 vectorises
                    for (int t = 0; t < dv; t++) {
                        o[dst + t] = acc[ar + t] * inv;
                    }
                } else {
                    for (int t = 0; t < dv; t++) {
                        o[dst + t] = acc[ar + t * accCs] * inv;
                    }
                }
                if (lse != null) {
                    lse[lseOff + row] = m[r0 + r] + (float) Math.log(sum);
                }
            }
        }
    }
}
