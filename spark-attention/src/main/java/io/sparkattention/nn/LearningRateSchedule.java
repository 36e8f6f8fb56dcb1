package io.sparkattention.nn;

import java.io.Serializable;

/**
 * A learning-rate factor per optimisation step t = 0, 1, … (the multiplier of
 * {@code torch.optim.lr_scheduler.LambdaLR}), passed to {@link Optimizer#step(float[], double[], double)}.
 */
public abstract class LearningRateSchedule implements Serializable {

    private static final long serialVersionUID = 1L;

    LearningRateSchedule() {
    }

    /** The factor of step {@code t} (0-based), finite and ≥ 0. */
    public abstract double factor(long t);

    /** Factor 1 at every step. */
    public static LearningRateSchedule constant() {
        return new LearningRateSchedule() {
            private static final long serialVersionUID = 1L;

            @Override
            public double factor(long t) {
                return 1.0;
            }
        };
    }

    /**
     * Hugging Face's {@code get_linear_schedule_with_warmup}: {@code t / warmup} for
     * {@code t < warmup} (so the first step has factor 0 when warmup &gt; 0), then
     * {@code max(0, (total − t) / max(1, total − warmup))}.
     *
     * @param warmupSteps ≥ 0
     * @param totalSteps  ≥ 0, the steps of the run
     * @throws IllegalArgumentException naming the negative argument
     */
    public static LearningRateSchedule linearWarmup(long warmupSteps, long totalSteps) {
        checkSteps(warmupSteps, totalSteps);
        return new LearningRateSchedule() {
            private static final long serialVersionUID = 1L;

            @Override
            public double factor(long t) {
                if (t < warmupSteps) {
                    return (double) t / Math.max(1, warmupSteps);
                }
                return Math.max(0.0, (double) (totalSteps - t) / Math.max(1, totalSteps - warmupSteps));
            }

            @Override
            public String toString() {
                return "linearWarmup(" + warmupSteps + ", " + totalSteps + ")";
            }
        };
    }

    /**
     * Hugging Face's {@code get_cosine_schedule_with_warmup} (half a cycle): {@code t / warmup}
     * for {@code t < warmup}, then {@code max(0, ½·(1 + cos(π·p)))} with
     * {@code p = (t − warmup) / max(1, total − warmup)}, from 1 down to 0 at {@code total}.
     *
     * @param warmupSteps ≥ 0
     * @param totalSteps  ≥ 0, the steps of the run
     * @throws IllegalArgumentException naming the negative argument
     */
    public static LearningRateSchedule cosineWarmup(long warmupSteps, long totalSteps) {
        checkSteps(warmupSteps, totalSteps);
        return new LearningRateSchedule() {
            private static final long serialVersionUID = 1L;

            @Override
            public double factor(long t) {
                if (t < warmupSteps) {
                    return (double) t / Math.max(1, warmupSteps);
                }
                double progress = (double) (t - warmupSteps) / Math.max(1, totalSteps - warmupSteps);
                return Math.max(0.0, 0.5 * (1.0 + Math.cos(Math.PI * progress)));
            }

            @Override
            public String toString() {
                return "cosineWarmup(" + warmupSteps + ", " + totalSteps + ")";
            }
        };
    }

    private static void checkSteps(long warmupSteps, long totalSteps) {
        if (warmupSteps < 0) {
            throw new IllegalArgumentException("warmupSteps must be >= 0, got " + warmupSteps);
        }
        if (totalSteps < 0) {
            throw new IllegalArgumentException("totalSteps must be >= 0, got " + totalSteps);
        }
    }
}
