package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * PyTorch 2.7.1 ({@link TorchLm#scoreBatch}) scoring the texts as Hugging Face's users feed
 * {@code GPT2LMHeadModel}: sorted by length in batches of 32 ({@link EncoderBatching#SORTED32}),
 * each right-padded to its longest with an attention mask, the input tensors made once here.
 * Every run reads each text's log-probabilities back. One untimed pass runs when the trial is made.
 */
final class TorchLmScoreTrial implements Trial {

    private final TorchRuntime runtime;
    private final GptConfig config;
    private final EncoderTexts texts;
    private final EncoderBatching batching = EncoderBatching.SORTED32;
    private final List<int[]> plan;
    private final List<TorchLm.ScoreBatch> batches = new ArrayList<>();
    private final double paddingShare;
    private final double[][] logProbs;

    TorchLmScoreTrial(TorchRuntime runtime, TorchLm lm, GptConfig config, EncoderTexts texts) {
        this.runtime = runtime;
        this.config = config;
        this.texts = texts;
        int[] lengths = OrtEncoderTrial.lengths(texts.ids());
        this.plan = batching.batches(lengths);
        this.paddingShare = EncoderBatching.paddingShare(plan, lengths);
        this.logProbs = new double[texts.count()][];
        try {
            for (int[] rows : plan) {
                int[][] ids = new int[rows.length][];
                for (int r = 0; r < rows.length; r++) {
                    ids[r] = texts.ids()[rows[r]];
                }
                batches.add(lm.scoreBatch(ids));
            }
            runOnce();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Each text's L − 1 log-probabilities of the last pass (not copied: read only). */
    double[][] logProbs() {
        return logProbs;
    }

    @Override
    public void runOnce() {
        for (int b = 0; b < batches.size(); b++) {
            float[][] scored = batches.get(b).run();
            int[] rows = plan.get(b);
            for (int r = 0; r < rows.length; r++) {
                double[] row = new double[scored[r].length];
                for (int t = 0; t < row.length; t++) {
                    row[t] = scored[r][t];
                }
                logProbs[rows[r]] = row;
            }
        }
    }

    @Override
    public boolean shortRun() {
        return LmWork.scoring(config, texts.ids()) <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        return LmLines.scoring("torch_lm_score", texts, runtime.threads(), wallMs, cpuMs,
                LmWork.scoring(config, texts.ids()), runtime.version(), logProbs)
            .with("batching", batching.label())
            .with("batch_size", batching.batchSize())
            .with("padding_share", Math.round(paddingShare * 10000) / 10000.0)
            .withAll(runtime.settings());
    }

    @Override
    public void close() {
        batches.forEach(TorchLm.ScoreBatch::close);
    }
}
