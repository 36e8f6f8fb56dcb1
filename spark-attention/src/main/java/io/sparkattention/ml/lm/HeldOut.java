package io.sparkattention.ml.lm;

import java.io.Serializable;

/**
 * The sequences a held-out fraction F sets aside, by their index k in the data (from 0): those
 * where {@code ⌊(k+1)·F⌋ > ⌊k·F⌋}, spread evenly through the corpus (for F = 0.1 every 10th:
 * k = 9, 19, 29, …). The choice depends on the index alone, so it is the same under any
 * partitioning and seed, and the held-out sequences before k number exactly {@code ⌊k·F⌋}: each
 * set's keys are renumbered 0, 1, 2, … without a job to count them.
 */
final class HeldOut implements Serializable {

    private static final long serialVersionUID = 1L;

    private final double fraction;

    /**
     * @param fraction F in [0, 1): 0 holds nothing out
     * @throws IllegalArgumentException when F is outside [0, 1)
     */
    HeldOut(double fraction) {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("validationFraction must be in [0, 1), got " + fraction);
        }
        this.fraction = fraction;
    }

    /** Whether sequence {@code k} is held out. */
    boolean isHeldOut(long k) {
        return before(k + 1) > before(k);
    }

    /** Sequence {@code k}'s key in its own set: its rank among the held-out or among the training sequences. */
    long key(long k) {
        return isHeldOut(k) ? before(k) : k - before(k);
    }

    /** The held-out sequences among {@code [0, k)}: ⌊k·F⌋. */
    long before(long k) {
        return (long) Math.floor(k * fraction);
    }
}
