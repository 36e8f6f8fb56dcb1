package io.sparkattention.nn;

/**
 * A counter-based generator: a draw is a pure function of its key (seed and counters mixed
 * together) and its element index, so it does not depend on the partition, thread, order or retry
 * that asks for it. The mixing is SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", 2014): {@link #key} folds (seed, a, b, c) in one at a time,
 * each offset by γ (the golden-ratio increment), and {@link #uniform} mixes {@code key + e·γ} and
 * keeps its top 53 bits as a double in [0, 1). The training's dropout
 * ({@code io.sparkattention.bert.DropoutMask}, keyed by seed, step, row and site) and the
 * decoder's sampling (keyed by seed, step and row) draw from it.
 */
public final class CounterRandom {

    /** γ: the golden-ratio increment of SplitMix64. */
    public static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
    private static final double TO_UNIT = 0x1.0p-53;

    private CounterRandom() {
    }

    /** The key of one (seed, a, b, c): {@code mix(mix(mix(mix(seed + γ) ^ (a + γ)) ^ (b + γ)) ^ (c + γ))}. */
    public static long key(long seed, long a, long b, long c) {
        long k = mix(seed + GOLDEN_GAMMA);
        k = mix(k ^ (a + GOLDEN_GAMMA));
        k = mix(k ^ (b + GOLDEN_GAMMA));
        return mix(k ^ (c + GOLDEN_GAMMA));
    }

    /** Draw {@code e} of a key: uniform in [0, 1), 53 random bits. */
    public static double uniform(long key, long e) {
        return bits(key + e * GOLDEN_GAMMA) * TO_UNIT;
    }

    /**
     * The 53 random bits of the draw whose mixed counter is {@code z = key + e·γ}: {@link #uniform}
     * is {@code bits(z)·2⁻⁵³}. A loop over consecutive draws steps z by γ.
     */
    public static long bits(long z) {
        return mix(z) >>> 11;
    }

    /**
     * The least 53-bit draw at or above p: {@code uniform(key, e) >= p} exactly when
     * {@code bits(key + e·γ) >= atLeast(p)}, for p in [0, 1] (p·2⁵³ is exact, and the bits are an
     * integer). Comparing integers spares a draw its conversion to double.
     */
    public static long atLeast(double p) {
        return (long) Math.ceil(p * 0x1.0p53);
    }

    /** SplitMix64's finaliser. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
