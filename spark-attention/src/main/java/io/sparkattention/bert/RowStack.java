package io.sparkattention.bert;

import io.sparkattention.kernel.ProbabilityDropout;

import java.util.Arrays;
import java.util.List;

/**
 * The rows of one stacked pass through the trainable blocks: row r's tokens are rows
 * {@code [starts[r], starts[r+1])} of every M×E (M×F, M×3E) buffer, M = {@link #tokens()}, and
 * its dropout masks are keyed by its own key, so a row's bits do not depend on the rows stacked
 * with it. A mask site's element e of row r is element e of that row's site tensor, as when the
 * row runs alone. Reused from run to run (arrays grown, never shrunk). Not thread-safe.
 */
final class RowStack {

    /** Mask slots per row: the embeddings (site 0), three per layer, the pooled vector (last). */
    private final int slots;
    private int count;
    private int[] starts = new int[1];
    private int[][] ids = new int[0][];
    private float[][] frozen = new float[0][];
    /** masks[r][slot] of the last pass that dropped; null until one does. */
    private DropoutMask[][] masks;
    /** Whether the last {@link #set} gave the rows dropout masks. */
    private boolean dropping;

    /** @param layers the encoder's layers (all of them: sites are numbered by absolute layer index) */
    RowStack(int layers) {
        this.slots = DropoutMask.site(layers, 0) + 1;
    }

    /**
     * Stacks {@code rows[from, to)}, each row with its masks keyed by (seed, step, its key, site)
     * at drop probability p.
     *
     * @param dropoutSites the sites that drop (absolute numbers, {@link DropoutMask#POOLED} included),
     *                     or null for no dropout
     */
    void set(List<BertClassifierRow> rows, int from, int to, long seed, long step, double p, int[] dropoutSites) {
        int n = to - from;
        dropping = false;
        if (ids.length < n) {
            ids = new int[n][];
            frozen = new float[n][];
            starts = new int[n + 1];
            masks = null;
        }
        count = n;
        for (int r = 0; r < n; r++) {
            BertClassifierRow row = rows.get(from + r);
            ids[r] = row.ids();
            frozen[r] = row.frozenStates();
            starts[r + 1] = starts[r] + row.ids().length;
        }
        if (dropoutSites == null) {
            return;
        }
        if (masks == null) {
            masks = new DropoutMask[ids.length][slots];
        }
        for (int r = 0; r < n; r++) {
            long key = rows.get(from + r).key();
            for (int site : dropoutSites) {
                masks[r][slot(site)] = DropoutMask.of(seed, step, key, site, p);
            }
        }
        dropping = true;
    }

    /** Forgets the rows' arrays (the caller's), keeping the buffers. */
    void clear() {
        Arrays.fill(ids, 0, count, null);
        Arrays.fill(frozen, 0, count, null);
        count = 0;
        dropping = false;
    }

    private int slot(int site) {
        return site == DropoutMask.POOLED ? slots - 1 : site;
    }

    int count() {
        return count;
    }

    /** M, the stacked tokens. */
    int tokens() {
        return starts[count];
    }

    /** count + 1 row offsets from 0 (the array may be longer). */
    int[] starts() {
        return starts;
    }

    int start(int r) {
        return starts[r];
    }

    int length(int r) {
        return starts[r + 1] - starts[r];
    }

    int[] ids(int r) {
        return ids[r];
    }

    /** Row r's cached frozen states, or null. */
    float[] frozen(int r) {
        return frozen[r];
    }

    /** Row r's mask at {@code site}, or null without dropout. */
    DropoutMask mask(int r, int site) {
        return dropping ? masks[r][slot(site)] : null;
    }

    /**
     * Each row's mask at {@code site} on its rows of x (M×width), forward or backward (the same
     * factors): row r's element e is {@code x[starts[r]·width + e]}. Nothing without dropout.
     */
    void apply(int site, float[] x, int width) {
        if (!dropping) {
            return;
        }
        for (int r = 0; r < count; r++) {
            masks[r][slot(site)].apply(x, starts[r] * width, length(r) * width, 0);
        }
    }

    /** Each sequence's dropout of its attention probabilities at {@code site}, or null without dropout. */
    ProbabilityDropout[] probabilities(int site) {
        if (!dropping) {
            return null;
        }
        ProbabilityDropout[] d = new ProbabilityDropout[count];
        for (int r = 0; r < count; r++) {
            d[r] = masks[r][slot(site)].probabilities(length(r), length(r));
        }
        return d;
    }
}
