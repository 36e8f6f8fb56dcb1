package io.sparkattention.bert;

import io.sparkattention.nn.GradientSums;

import java.util.Arrays;

/**
 * An evaluator's float32 gradient sums since its last flush, over the whole flat vector, and the
 * word-embedding rows they touch: the rows added are summed here in float32 in the order they are
 * added, and a flush moves them into the caller's float64 sums (a read and write of every
 * parameter, once per run of rows). Of the word embedding only the touched rows are flushed.
 * Not thread-safe: one per evaluator.
 */
final class PendingGradient {

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    /** The sums, parameterCount values; zero where nothing is pending. */
    final float[] values;
    /** The word embedding's range of the flat vector, [wordFrom, wordTo); empty when it does not train. */
    private final int wordFrom;
    private final int wordTo;
    private final int width;
    /** Per vocabulary id, whether this flush has moved its row (null when the word embedding does not train). */
    private final boolean[] flushed;
    /** The ids of the pending rows, in order, with repeats: the word rows to flush. */
    private int[] ids = new int[0];
    private int idCount;
    private boolean pending;

    /**
     * @param parameters the flat vector's length
     * @param wordFrom   the word embedding's offset, or −1 when it does not train
     * @param vocab      its rows
     * @param width      its row width, E
     */
    PendingGradient(int parameters, int wordFrom, int vocab, int width) {
        this.values = new float[parameters];
        this.width = width;
        if (wordFrom >= 0) {
            this.wordFrom = wordFrom;
            this.wordTo = wordFrom + vocab * width;
            this.flushed = new boolean[vocab];
        } else {
            this.wordFrom = 0;
            this.wordTo = 0;
            this.flushed = null;
        }
    }

    /**
     * Marks a row's gradient as about to be added (before the backward writes, so that
     * {@link #discard} clears a row that failed part-way) and records its word rows.
     */
    void touch(int[] rowIds) {
        pending = true;
        if (flushed != null) {
            if (idCount + rowIds.length > ids.length) {
                ids = Arrays.copyOf(ids, Math.max(2 * ids.length, idCount + rowIds.length));
            }
            System.arraycopy(rowIds, 0, ids, idCount, rowIds.length);
            idCount += rowIds.length;
        }
    }

    /** Adds the pending sums into {@code grad} (the flat vector's float64 sums) and clears them. */
    void flushInto(double[] grad) {
        if (!pending) {
            return;
        }
        MATH.addAndClear(values, grad, 0, wordFrom);
        MATH.addAndClear(values, grad, wordTo, values.length);
        for (int i = 0; i < idCount; i++) {
            int id = ids[i];
            if (!flushed[id]) {
                flushed[id] = true;
                int o = wordFrom + id * width;
                MATH.addAndClear(values, grad, o, o + width);
            }
        }
        done();
    }

    /**
     * Adds the pending sums into {@code sums} (the word embedding, when it trains, as row-sparse
     * tensor 0, its touched rows only) and clears them.
     */
    void flushInto(GradientSums sums) {
        if (!pending) {
            return;
        }
        if (wordFrom > 0) {
            sums.addAndClear(values, 0, wordFrom);
        }
        if (wordTo < values.length) {
            sums.addAndClear(values, wordTo, values.length);
        }
        for (int i = 0; i < idCount; i++) {
            int id = ids[i];
            if (!flushed[id]) {
                flushed[id] = true;
                sums.addRowAndClear(0, id, values);
            }
        }
        done();
    }

    private void done() {
        for (int i = 0; i < idCount; i++) {
            flushed[ids[i]] = false;
        }
        idCount = 0;
        pending = false;
    }

    /**
     * Clears the pending sums without adding them, and the rows' marks of a flush that failed
     * part-way, so that the sums are as new.
     */
    void discard() {
        if (pending) {
            Arrays.fill(values, 0f);
            done();
        }
    }
}
