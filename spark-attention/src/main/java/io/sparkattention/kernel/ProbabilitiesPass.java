package io.sparkattention.kernel;

/**
 * Attention probabilities (PyTorch's "attention weights") of one head from a forward pass's
 * log-sum-exp, as a {@link StripVisitor} of the {@link TileWalk}: per strip, scores and masks recomputed, {@code P = exp(S − lse)}, and
 * {@code weights += factor·P} (factor 1 per head, 1/H for the head average). Entries the walk
 * skips and rows with {@code lse = −∞} are left as they are (the caller zeroes the output first).
 *
 * <p>Shapes: q L×d, k S×d, weights L×S (ld S); allowed and bias L×S or absent; lse L. K is read
 * in place.
 */
final class ProbabilitiesPass extends StripVisitor {

    private final TileOps ops;
    private final OnlineSoftmax softmax;
    private final Workspace ws;
    private final float factor;
    private final MatrixView k, weights;
    private final MaskedScores scores;
    private final float[] lse;
    private final int lseOff;

    private int i0;

    ProbabilitiesPass(TileOps ops, Workspace ws, KeyBand band, float scale, int d, MatrixView q, MatrixView k,
                      MaskView allowed, MatrixView bias, float[] lse, int lseOff, MatrixView weights, float factor) {
        this.ops = ops;
        this.softmax = ops.softmax();
        this.ws = ws;
        this.k = k;
        this.scores = new MaskedScores(ops, ws, band, scale, d, 0, 0, q, allowed, bias);
        this.lse = lse;
        this.lseOff = lseOff;
        this.weights = weights;
        this.factor = factor;
    }

    @Override
    void beginBlock(int i0, int bq, boolean visible) {
        this.i0 = i0;
        scores.beginBlock(i0, bq, visible);
    }

    @Override
    void beginTile(int j0, int j1) {
    }

    @Override
    void strip(int r0, int w, int c0, int c1) {
        final int nk = c1 - c0, lds = ops.scoreStride(w), row = i0 + r0;
        final float[] s = ws.scores, out = weights.data();
        scores.strip(r0, w, c0, nk, lds, k.data(), k.at(c0, 0), k.ld());
        softmax.expMinus(w, lds, nk, s, lse, lseOff + row);
        for (int r = 0; r < w; r++) {
            if (lse[lseOff + row + r] == Float.NEGATIVE_INFINITY) {
                continue;  // fully masked row: weights stay 0
            }
            final int dst = weights.at(row + r, c0);
            for (int c = 0; c < nk; c++) {
                out[dst + c] += factor * s[c * lds + r];
            }
        }
    }

    @Override
    void endBlock() {
    }
}
