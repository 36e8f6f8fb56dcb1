package io.sparkattention.kernel;

/**
 * Scratch memory of one kernel call: the Bq×Bk score tile, the running max and sum (Bq each) and
 * the unnormalised Bq×dv output accumulator. This is all the extra memory the kernel uses, and it
 * does not depend on L or S. Not thread-safe: one per thread; reusing it across calls avoids
 * garbage in tight loops.
 */
public final class Workspace {

    float[] scores = new float[0];
    float[] rowMax = new float[0];
    float[] rowSum = new float[0];
    float[] acc = new float[0];

    /** Grows the buffers to fit {@code spec}'s blocks and value dimension {@code dv}. */
    void ensure(AttentionSpec spec, int dv) {
        int bq = spec.queryBlock();
        int tile = bq * spec.keyBlock();
        if (scores.length < tile) {
            scores = new float[tile];
        }
        if (rowMax.length < bq) {
            rowMax = new float[bq];
            rowSum = new float[bq];
        }
        if (acc.length < bq * dv) {
            acc = new float[bq * dv];
        }
    }

    /** Floats held right now (for memory accounting in benchmarks and tests). */
    public long floats() {
        return (long) scores.length + rowMax.length + rowSum.length + acc.length;
    }
}
