package io.sparkattention.kernel;

/**
 * The key ranges a backward call splits every key/value head's {@code keys} keys into:
 * {@code count} chunks of ⌊keys/count⌋ or ⌈keys/count⌉ keys, chunk c being
 * {@code [c·keys/count, (c+1)·keys/count)}. A unit of the backward pass owns one chunk of a group
 * of heads: the chunk's dK and dV rows and dBias columns, which no other unit writes, and a partial
 * dQ of the queries that see the chunk, which the call adds up in ascending chunk order. Chosen by
 * {@link BlockPolicy#keyChunksFor} from the shape alone, so the sequential and the parallel calls
 * cut the same chunks.
 *
 * @param keys  S, the keys of the sequence
 * @param count number of chunks, at least 1
 */
record KeyChunks(int keys, int count) {

    /** First key of chunk {@code c}. */
    int start(int c) {
        return (int) ((long) c * keys / count);
    }

    /** One past the last key of chunk {@code c}. */
    int end(int c) {
        return start(c + 1);
    }

    /**
     * First query row of chunk {@code c}'s walk: the start of the first block of {@code Bq} rows
     * (on the grid of the whole sequence) with a query that may see a key of the chunk, or
     * {@link #endRow} when none does.
     */
    int firstRow(int c, KeyBand band, int L, int Bq) {
        for (int r = 0; r < L; r += Bq) {
            if (band.any(r, Math.min(L, r + Bq), start(c), end(c))) {
                return r;
            }
        }
        return endRow(c, band, L, Bq);
    }

    /**
     * One past the last query row of chunk {@code c}'s walk: the end of the last block of
     * {@code Bq} rows with a query that may see a key of the chunk, or 0 when none does. Both
     * bounds of the band grow with the query, so the blocks in between see the chunk as well.
     */
    int endRow(int c, KeyBand band, int L, int Bq) {
        for (int r = (L - 1) / Bq * Bq; r >= 0; r -= Bq) {
            if (band.any(r, Math.min(L, r + Bq), start(c), end(c))) {
                return Math.min(L, r + Bq);
            }
        }
        return 0;
    }
}
