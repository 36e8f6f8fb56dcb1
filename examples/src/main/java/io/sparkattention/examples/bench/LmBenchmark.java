package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptDecoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The language-model benchmark in this JVM ({@code bench --lm}): the library's
 * {@link GptDecoder} against PyTorch 2.7.1 ({@link TorchLm}) on the same weights, round-robin
 * ({@link Interleaved}) with the machine's FMA loop ({@link FmaPeak}, as many flops a repetition
 * as ours) and the LM head alone ({@link LmHeadTrial}, the head's share of our time).
 *
 * <p>Before anything is timed, each trial's untimed first pass is compared: every token's
 * log-probability within {@value #LOG_PROB_TOLERANCE} of the library's, and the greedy ids equal
 * (a difference is accepted only where the two candidates' logits, as the library computes them
 * on the shared prefix, lie within {@value #TIE_TOLERANCE}: a tie that float32 rounding breaks
 * either way). Otherwise the run stops: a timing never stands for a different computation.
 */
public final class LmBenchmark {

    /** Largest difference of a token's log-probability between the contenders. */
    static final double LOG_PROB_TOLERANCE = 1e-4;
    /** Largest logit gap between two greedy candidates that float32 rounding may order either way. */
    static final double TIE_TOLERANCE = 1e-4;
    /** Rows the decoder's head projects per call while scoring (GptScorer's HEAD_ROWS). */
    static final int SCORE_HEAD_ROWS = 128;

    private LmBenchmark() {
    }

    /**
     * Times scoring {@code texts}: ours, then PyTorch's (when {@code lm} is given), the head, the FMA loop.
     *
     * @return ours with throughput_vs_torch, head_share_of_time and fraction_of_fma; PyTorch's
     *         with max_abs_diff_vs_ours and fraction_of_fma; the head's; the FMA loop's
     */
    public static List<BenchResult> score(GptDecoder decoder, EncoderTexts texts, TorchRuntime torch, TorchLm lm,
                                          int threads, int repeat) {
        List<Trial> trials = new ArrayList<>();
        try {
            LmScoreTrial ours = new LmScoreTrial(decoder, texts, threads);
            trials.add(ours);
            double diff = Double.NaN;
            if (lm != null) {
                TorchLmScoreTrial theirs = new TorchLmScoreTrial(torch, lm, decoder.config(), texts);
                trials.add(theirs);
                diff = maxAbsDiff(ours.logProbs(), theirs.logProbs());
                if (!(diff <= LOG_PROB_TOLERANCE)) {
                    throw new IllegalStateException("lm_score: PyTorch's token log-probabilities differ from the "
                        + "library's by up to " + diff + " (tolerance " + LOG_PROB_TOLERANCE + "): nothing timed");
                }
            }
            long scored = Arrays.stream(texts.ids()).mapToLong(r -> Math.max(0, r.length - 1)).sum();
            int headCalls = Math.toIntExact((scored + SCORE_HEAD_ROWS - 1) / SCORE_HEAD_ROWS);
            trials.add(new LmHeadTrial(decoder, SCORE_HEAD_ROWS, headCalls, threads));
            trials.add(FmaPeak.trial(ours.work(), threads, (wall, flops) -> BenchResult.timed("fma", threads, wall,
                flops, "none")));
            List<BenchResult> results = Interleaved.time(trials, repeat);
            finish(results, lm != null);
            if (lm != null) {
                results.get(1).with("max_abs_diff_vs_ours", diff);
            }
            results.get(0).with("head_share_of_work", round(LmWork.headShare(decoder.config(), texts.ids())));
            return results;
        } finally {
            trials.forEach(Trial::close);
        }
    }

    /**
     * Times greedy generation of {@code newTokens} ids after each prompt, in calls of {@code batch}
     * prompts: ours, PyTorch's, the head over one step's rows, the FMA loop.
     *
     * @param prompts prompts of one length, a multiple of {@code batch} of them
     */
    public static List<BenchResult> generate(GptDecoder decoder, int[][] prompts, int batch, int newTokens,
                                             TorchRuntime torch, TorchLm lm, int threads, int repeat) {
        List<Trial> trials = new ArrayList<>();
        try {
            LmGenerateTrial ours = new LmGenerateTrial(decoder, prompts, batch, newTokens, threads);
            trials.add(ours);
            String ties = null;
            if (lm != null) {
                TorchLmGenerateTrial theirs = new TorchLmGenerateTrial(torch, lm, decoder.config(), prompts, batch,
                    newTokens);
                trials.add(theirs);
                ties = GreedyAgreement.check(decoder, prompts, ours.generated(), theirs.generated(), TIE_TOLERANCE);
            }
            trials.add(new LmHeadTrial(decoder, batch, prompts.length / batch * newTokens, threads));
            trials.add(FmaPeak.trial(ours.work(), threads, (wall, flops) -> BenchResult.timed("fma", threads, wall,
                flops, "none")));
            List<BenchResult> results = Interleaved.time(trials, repeat);
            finish(results, lm != null);
            if (lm != null) {
                results.get(1).with("ids_equal", ties == null).with("ids_differ_at", ties);
            }
            results.get(0).with("head_share_of_work", round(LmWork.head(decoder.config(), newTokens) * prompts.length
                / ours.work()));
            return results;
        } finally {
            trials.forEach(Trial::close);
        }
    }

    /** The ratio fields: ours vs PyTorch, the head's share of our time, every contender's fraction of the FMA loop. */
    private static void finish(List<BenchResult> results, boolean torch) {
        BenchResult ours = results.get(0), fma = results.get(results.size() - 1);
        BenchResult head = results.get(results.size() - 2);
        if (torch) {
            BenchResult theirs = results.get(1);
            ours.with("throughput_vs_torch", SparkLayerBenchmark.ratio(theirs, ours));
            theirs.with("fraction_of_fma", round(theirs.gflops() / fma.gflops()));
        }
        ours.with("fraction_of_fma", round(ours.gflops() / fma.gflops()));
        ours.with("head_share_of_time", round(head.medianMs() / ours.medianMs()));
    }

    /** The largest difference between two contenders' log-probabilities, text by text. */
    static double maxAbsDiff(double[][] a, double[][] b) {
        double worst = 0;
        for (int r = 0; r < a.length; r++) {
            if (a[r].length != b[r].length) {
                throw new IllegalStateException("text " + r + ": " + a[r].length + " log-probabilities against "
                    + b[r].length);
            }
            for (int t = 0; t < a[r].length; t++) {
                worst = Math.max(worst, Math.abs(a[r][t] - b[r][t]));
            }
        }
        return worst;
    }

    private static double round(double x) {
        return Math.round(x * 10000) / 10000.0;
    }
}
