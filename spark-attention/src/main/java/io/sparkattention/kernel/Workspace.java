package io.sparkattention.kernel;

/**
 * Scratch memory of one kernel call: the Bq×Bk score tile, the running max, sum and rescale factor
 * (Bq each), the unnormalised Bq×dv output accumulator, the packed (scaled, per-strip transposed) Bq×d query
 * block and, for implementations that want them, contiguous copies of one key tile (Bk×d) and
 * value tile (Bk×dv). This is all the extra memory the kernel uses, and it does not depend on L or S. Not
 * thread-safe: one per thread; reusing it across calls avoids garbage in tight loops.
 */
public final class Workspace {

    float[] scores = new float[0];
    float[] rowMax = new float[0];
    float[] rowSum = new float[0];
    float[] rowScale = new float[0];
    float[] acc = new float[0];
    float[] queries = new float[0];
    float[] keys = new float[0];
    float[] values = new float[0];

    /** Grows the buffers to fit {@code spec}'s blocks, head dimension {@code d} and value dimension {@code dv}. */
    void ensure(AttentionSpec spec, int d, int dv) {
        int bq = spec.queryBlock();
        int tile = bq * spec.keyBlock();
        if (scores.length < tile) {
            scores = new float[tile];
        }
        if (rowMax.length < bq) {
            rowMax = new float[bq];
            rowSum = new float[bq];
            rowScale = new float[bq];
        }
        if (acc.length < bq * dv) {
            acc = new float[bq * dv];
        }
        if (queries.length < bq * d) {
            queries = new float[bq * d];
        }
        int bk = spec.keyBlock();
        if (keys.length < bk * d) {
            keys = new float[bk * d];
        }
        if (values.length < bk * dv) {
            values = new float[bk * dv];
        }
    }

    /** Floats held right now (for memory accounting in benchmarks and tests). */
    public long floats() {
        return (long) scores.length + rowMax.length + rowSum.length + rowScale.length + acc.length + queries.length
            + keys.length + values.length;
    }
}
