package io.sparkattention.ml.training;

import io.sparkattention.nn.CounterRandom;

/**
 * The engine's one sampling rule: with {@code miniBatchFraction} f &lt; 1 a row is in step t's
 * sample when a uniform draw from (seed, t, row key) alone is below f. So a re-run task (after a
 * failure or an executor loss) samples the same rows, and the sample does not depend on how the
 * rows are partitioned. The draw folds seed, step and key in with SplitMix64's finaliser
 * ({@link CounterRandom#mix}), each offset by a multiple of its increment γ.
 */
public final class Sampling {

    private static final double TO_UNIT = 0x1.0p-53;

    private Sampling() {
    }

    /** Whether the row keyed {@code key} is in step {@code step}'s sample at fraction {@code fraction}. */
    public static boolean sampled(long seed, long step, long key, double fraction) {
        return fraction >= 1 || draw(seed, step, key) < fraction;
    }

    /** The row's uniform draw in [0, 1) for step {@code step}: 53 bits of a pure function of (seed, step, key). */
    static double draw(long seed, long step, long key) {
        long h = CounterRandom.mix(seed + CounterRandom.GOLDEN_GAMMA * (step + 1));
        // The step's seed as it was when a partition index (always 0 here) was folded in too: kept
        // so that fine-tuning samples the rows it sampled before the engine.
        h = CounterRandom.mix(h + CounterRandom.GOLDEN_GAMMA);
        h = CounterRandom.mix(h + CounterRandom.GOLDEN_GAMMA * (key + 1));
        return (h >>> 11) * TO_UNIT;
    }
}
