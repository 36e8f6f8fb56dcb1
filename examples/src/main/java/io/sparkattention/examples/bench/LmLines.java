package io.sparkattention.examples.bench;

/**
 * The lines of the language-model benchmark's contenders ({@code bench --lm}), ours and
 * PyTorch's alike, so both count the same things.
 */
final class LmLines {

    private LmLines() {
    }

    /**
     * A scoring line ({@code lm_score}): the texts, {@code tokens_per_s} (their own tokens over the
     * median time: padding is not throughput), {@code log_prob_sum} over every scored token (a
     * checksum, which must be finite).
     *
     * @param flops    the counted work of one pass ({@link LmWork#scoring})
     * @param logProbs each text's L − 1 log-probabilities of the last pass
     */
    static BenchResult scoring(String mode, EncoderTexts texts, int threads, double[] wallMs, double[] cpuMs,
                               double flops, String blas, double[][] logProbs) {
        double sum = 0;
        long scored = 0;
        for (double[] row : logProbs) {
            for (double x : row) {
                sum += x;
            }
            scored += row.length;
        }
        if (!Double.isFinite(sum)) {
            throw new IllegalStateException(mode + " produced a non-finite log-probability (sum " + sum + ")");
        }
        double median = median(wallMs);
        return BenchResult.timed(mode, threads, wallMs, flops, blas)
            .withCpuTimes(cpuMs, flops)
            .with("texts", texts.count())
            .with("tokens", texts.tokens())
            .with("scored_tokens", scored)
            .with("mean_len", Math.round(texts.meanLength() * 1000) / 1000.0)
            .with("min_len", texts.minLength())
            .with("max_len", texts.maxLength())
            .with("tokens_per_s", Math.round(texts.tokens() / (median / 1e3) * 10) / 10.0)
            .with("log_prob_sum", sum);
    }

    /**
     * A generation line ({@code lm_generate}): P prompts of one length, N new ids each, in calls of
     * B prompts; {@code new_tokens_per_s} is P·N over the median time (the prompts' forward
     * included), {@code median_step_ms} the median time over N (one new id of every prompt).
     *
     * @param flops the counted work of one repetition ({@link LmWork#generation})
     * @param ids   each prompt's new ids of the last repetition
     */
    static BenchResult generation(String mode, int batch, int[][] prompts, int newTokens, int threads, double[] wallMs,
                                  double[] cpuMs, double flops, String blas, int[][] ids) {
        long checksum = 0;
        for (int[] row : ids) {
            if (row == null || row.length != newTokens) {
                throw new IllegalStateException(mode + " returned " + (row == null ? "no" : row.length) + " new ids, not "
                    + newTokens);
            }
            for (int id : row) {
                checksum = checksum * 31 + id;
            }
        }
        double median = median(wallMs);
        return BenchResult.timed(mode, threads, wallMs, flops, blas)
            .withCpuTimes(cpuMs, flops)
            .with("batch", batch)
            .with("prompts", prompts.length)
            .with("prompt_len", prompts[0].length)
            .with("new_tokens", newTokens)
            .with("greedy", true)
            .with("median_step_ms", Math.round(median / newTokens * 1000) / 1000.0)
            .with("new_tokens_per_s", Math.round((double) prompts.length * newTokens / (median / 1e3) * 10) / 10.0)
            .with("ids_checksum", checksum);
    }

    private static double median(double[] wallMs) {
        double[] sorted = wallMs.clone();
        java.util.Arrays.sort(sorted);
        return BenchResult.median(sorted);
    }
}
