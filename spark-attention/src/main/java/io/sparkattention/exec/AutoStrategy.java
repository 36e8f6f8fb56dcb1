package io.sparkattention.exec;

import io.sparkattention.nn.AttentionWeightsMode;

/**
 * The rule behind {@link Strategy#AUTO}.
 *
 * <p>Each strategy cuts the work into units — rows for {@link Strategy#BATCH}, (row, head) pairs
 * for {@link Strategy#HEAD}, (query block, key block) pairs for {@link Strategy#SEQUENCE} — and
 * a stage cannot finish before its largest unit. With {@code P} cores, total work {@code W} and a
 * largest unit {@code m}, the stage takes about {@code ceil((W/m)/P)·m} (W/m units of the largest
 * size, P at a time), against {@code W/P} for a perfect spread. The rule, in order:
 * <ol>
 *   <li>a streaming DataFrame runs {@code batch} (the others shuffle);</li>
 *   <li>a job whose total work is below {@link ExecutionSettings#AUTO_MIN_SHUFFLE_SCORES} runs
 *       {@code batch}: shuffles would cost more than they save;</li>
 *   <li>otherwise the simplest strategy — batch, then head — whose estimate is within
 *       {@link ExecutionSettings#AUTO_IMBALANCE} of the perfect spread; batch counts only the
 *       input's non-empty partitions, since it does not move rows;</li>
 *   <li>otherwise {@code sequence}, unless attention weights are requested (it cannot produce
 *       them) or it would not be faster than the better of the two;</li>
 *   <li>otherwise the better of batch and head.</li>
 * </ol>
 * The rule is a pure function of its inputs, so tests and the benchmark can ask what a
 * workload would get.
 */
public final class AutoStrategy {

    /** A chosen strategy and the reason, as logged. */
    public static final class Choice {
        private final Strategy strategy;
        private final String reason;

        Choice(Strategy strategy, String reason) {
            this.strategy = strategy;
            this.reason = reason;
        }

        /** Never {@link Strategy#AUTO}. */
        public Strategy strategy() {
            return strategy;
        }

        /** Why, with the numbers the rule compared. */
        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return strategy.paramValue() + " (" + reason + ")";
        }
    }

    private AutoStrategy() {
    }

    /** The choice for a streaming DataFrame. */
    public static Choice forStreaming() {
        return new Choice(Strategy.BATCH, "streaming DataFrame: only batch runs on streams");
    }

    /**
     * Chooses a strategy for a batch DataFrame.
     *
     * @param stats       the workload
     * @param parallelism cores of the cluster ({@code SparkContext.defaultParallelism})
     * @param weights     requested attention weights
     * @param settings    thresholds and the sequence block size
     */
    public static Choice choose(WorkloadStats stats, int parallelism, AttentionWeightsMode weights, ExecutionSettings settings) {
        int p = Math.max(1, parallelism);
        double total = stats.totalScores();
        if (stats.rows() == 0 || total < settings.autoMinShuffleScores()) {
            return new Choice(Strategy.BATCH, String.format("%s: below %s = %d scores, not worth a shuffle", stats,
                ExecutionSettings.AUTO_MIN_SHUFFLE_SCORES, settings.autoMinShuffleScores()));
        }
        double ideal = total / p;
        double limit = settings.autoImbalance() * ideal;
        double batch = estimate(total, stats.maxRowScores(), Math.max(1, Math.min(p, stats.partitions())));
        double head = estimate(total, stats.maxHeadScores(), p);
        long b = settings.sequenceBlockRows();
        double block = (double) Math.min(stats.maxQueryLength(), b) * Math.min(stats.maxKeyLength(), b);
        double sequence = estimate(total, Math.max(1, Math.min(block, stats.maxHeadScores())), p);
        String numbers = String.format("%s on %d cores; estimated time / perfect spread: batch %.2f, head %.2f, "
            + "sequence %.2f (limit %.2f)", stats, p, batch / ideal, head / ideal, sequence / ideal,
            settings.autoImbalance());
        if (batch <= limit) {
            return new Choice(Strategy.BATCH, numbers);
        }
        if (stats.heads() > 1 && head <= limit) {
            return new Choice(Strategy.HEAD, numbers);
        }
        boolean headBetter = stats.heads() > 1 && head < batch;
        if (weights != AttentionWeightsMode.NONE) {
            return new Choice(headBetter ? Strategy.HEAD : Strategy.BATCH,
                numbers + "; attention weights requested, which sequence cannot produce");
        }
        if (sequence < Math.min(batch, head)) {
            return new Choice(Strategy.SEQUENCE, numbers);
        }
        return new Choice(headBetter ? Strategy.HEAD : Strategy.BATCH, numbers);
    }

    /** About {@code ceil((total/unit)/slots)·unit}: rounds of largest-size units on {@code slots} cores. */
    static double estimate(double total, double unit, int slots) {
        if (unit <= 0) {
            return total / slots;
        }
        return Math.ceil(total / unit / slots - 1e-9) * unit;
    }
}
