package io.sparkattention.testing;

import java.util.SplittableRandom;

/** Seeded random inputs for specification tests. */
public final class RandomTensors {

    private final SplittableRandom random;

    public RandomTensors(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** Standard normal values times {@code scale}. */
    public float[] normal(int n, double scale) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (gaussian() * scale);
        }
        return x;
    }

    /** Booleans, true with probability {@code p}. */
    public boolean[] bernoulli(int n, double p) {
        boolean[] x = new boolean[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextDouble() < p;
        }
        return x;
    }

    /** Uniform int in [lo, hi]. */
    public int between(int lo, int hi) {
        return lo + random.nextInt(hi - lo + 1);
    }

    public double uniform() {
        return random.nextDouble();
    }

    public <T> T pick(T[] options) {
        return options[random.nextInt(options.length)];
    }

    public int pick(int... options) {
        return options[random.nextInt(options.length)];
    }

    private double gaussian() {
        // Box–Muller: SplittableRandom has no nextGaussian on Java 17.
        double u = 1.0 - random.nextDouble();
        double v = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
