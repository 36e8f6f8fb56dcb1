package io.sparkattention.examples.bench;

import java.util.SplittableRandom;

/**
 * The inputs every measurement runs on, and the check on its output: uniform values in [−1, 1)
 * from a seeded generator, so runs are repeatable, and an output that must be all finite, so a
 * timing never stands for a broken computation.
 */
public final class UniformInputs {

    private UniformInputs() {
    }

    /** @return {@code size} values uniform in [−1, 1), the next ones of {@code random} */
    public static float[] uniform(int size, SplittableRandom random) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) {
            x[i] = (float) (random.nextDouble() * 2 - 1);
        }
        return x;
    }

    /**
     * @param out  a measured computation's output
     * @param what the computation, for the error
     * @throws IllegalStateException naming {@code what} when an output value is NaN or infinite
     */
    public static void requireFinite(float[] out, String what) {
        for (float x : out) {
            if (!Float.isFinite(x)) {
                throw new IllegalStateException(what + " produced a non-finite output");
            }
        }
    }
}
