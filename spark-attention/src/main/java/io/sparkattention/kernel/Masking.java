package io.sparkattention.kernel;

import java.util.Arrays;

/**
 * Bias and masks on a strip's key-major scores {@code s[c·lds + r]} (key c, query r): the additive
 * bias, the structural band (causal, window, padding) and the boolean mask. Shared by every pass
 * that recomputes scores (forward, weights, backward), so they all mask the same entries.
 */
final class Masking {

    private Masking() {
    }

    /**
     * Adds the bias and applies the band and the boolean mask to a strip of {@code w} queries ×
     * {@code nk} keys. {@code qFirst}/{@code kFirst}: global positions of the strip's first query
     * and key; bias and allowed are row-major views (query rows, ld given) of the strip's corner,
     * or null.
     */
    static void apply(float[] s, int w, int lds, int nk, KeyBand band, long qFirst, long kFirst,
                      boolean[] allowed, int allowedOff, int ldAllowed,
                      float[] bias, int biasOff, int ldBias) {
        if (bias != null) {
            for (int r = 0; r < w; r++) {
                final int b = biasOff + r * ldBias;
                for (int c = 0; c < nk; c++) {
                    s[c * lds + r] += bias[b + c];
                }
            }
        }
        // The band: key j is visible to queries [firstQuery(j), lastQuery(j)], a contiguous run
        // of each key row. Strips wholly inside the band skip this.
        if (band.cuts(qFirst, qFirst + w - 1, kFirst, kFirst + nk - 1)) {
            final long qLast = qFirst + w - 1;
            // Keys [lo(qLast), hi(qFirst)] are seen by every query of the strip (both bounds are
            // non-decreasing): only the keys either side of that run are walked. On a causal
            // diagonal that is the strip's last w − 1 keys, not all of the tile's.
            final int seenFrom = (int) Math.min(nk, Math.max(0, band.lo(qLast) - kFirst));
            final int seenTo = (int) Math.min(nk, Math.max(seenFrom, band.hi(qFirst) - kFirst + 1));
            maskKeys(s, w, lds, band, qFirst, kFirst, 0, seenFrom);
            maskKeys(s, w, lds, band, qFirst, kFirst, seenTo, nk);
        }
        if (allowed != null) {
            for (int r = 0; r < w; r++) {
                final int a = allowedOff + r * ldAllowed;
                for (int c = 0; c < nk; c++) {
                    if (!allowed[a + c]) {
                        s[c * lds + r] = Float.NEGATIVE_INFINITY;
                    }
                }
            }
        }
    }

    /**
     * The band on keys {@code [c0, c1)} of a strip's scores: key j is visible to queries
     * {@code [firstQuery(j), lastQuery(j)]}, a contiguous run of its row; the rest become −∞.
     */
    private static void maskKeys(float[] s, int w, int lds, KeyBand band, long qFirst, long kFirst, int c0, int c1) {
        final long qLast = qFirst + w - 1;
        for (int c = c0; c < c1; c++) {
            final long j = kFirst + c;
            final long firstVisible = band.firstQuery(j);
            final int from = firstVisible <= qFirst ? 0 : (int) Math.min(w, firstVisible - qFirst);
            final long lastVisible = band.lastQuery(j);
            final int to = lastVisible >= qLast ? w : (int) Math.max(0, lastVisible - qFirst + 1);
            final int row = c * lds;
            if (from >= to) {
                Arrays.fill(s, row, row + w, Float.NEGATIVE_INFINITY);
            } else {
                Arrays.fill(s, row, row + from, Float.NEGATIVE_INFINITY);
                Arrays.fill(s, row + to, row + w, Float.NEGATIVE_INFINITY);
            }
        }
    }
}
