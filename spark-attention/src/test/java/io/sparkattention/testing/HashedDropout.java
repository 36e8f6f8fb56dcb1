package io.sparkattention.testing;

import io.sparkattention.kernel.ProbabilityDropout;

/**
 * The tests' counter-based probability dropout: SplitMix64's finaliser of (seed, head, query, key),
 * kept (factor {@code 1/(1 − p)}) when its top 53 bits as a uniform are ≥ p, else 0. Independent of
 * {@code bert.DropoutMask}, so the kernel and layer tests need nothing above them.
 */
public record HashedDropout(long seed, double p) implements ProbabilityDropout {

    @Override
    public float factor(int h, int i, int j) {
        long z = seed + 0x9e3779b97f4a7c15L * (((long) h << 42) ^ ((long) i << 21) ^ j);
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53 >= p ? (float) (1 / (1 - p)) : 0f;
    }
}
