package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.kernel.Blas;
import io.sparkattention.ml.feature.EncoderBatches;

import java.util.List;
import java.util.concurrent.ForkJoinPool;

/**
 * The library scoring texts ({@code bench --lm}, mode {@code lm_score}): every text's token
 * log-probabilities through {@link GptDecoder#tokenLogProbs(int[][], int)}, unpadded, the texts in
 * input order cut into the encoder stage's batches ({@link EncoderBatches#defaults()}), the batches
 * shared out to T threads one at a time ({@link RowThreads}), as a Spark task's rows are. One
 * untimed pass runs when the trial is made.
 */
final class LmScoreTrial implements Trial {

    private final GptDecoder decoder;
    private final EncoderTexts texts;
    private final int threads;
    private final ForkJoinPool pool;
    private final List<int[]> batches;
    private final double[][] logProbs;

    LmScoreTrial(GptDecoder decoder, EncoderTexts texts, int threads) {
        this.decoder = decoder;
        this.texts = texts;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.batches = EncoderBatches.defaults().split(OrtEncoderTrial.lengths(texts.ids()));
        this.logProbs = new double[texts.count()][];
        runOnce();
    }

    /** Each text's L − 1 log-probabilities of the last pass (not copied: read only). */
    double[][] logProbs() {
        return logProbs;
    }

    @Override
    public void runOnce() {
        int[][] ids = texts.ids();
        int stride = decoder.config().positions() - 1;
        RowThreads.run(pool, threads, batches.size(), () -> b -> {
            int[] batch = batches.get(b);
            int[][] group = new int[batch.length][];
            for (int j = 0; j < batch.length; j++) {
                group[j] = ids[batch[j]];
            }
            double[][] scored = decoder.tokenLogProbs(group, stride);
            for (int j = 0; j < batch.length; j++) {
                logProbs[batch[j]] = scored[j];
            }
        }, "lm_score");
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    double work() {
        return LmWork.scoring(decoder.config(), texts.ids());
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        return LmLines.scoring("lm_score", texts, threads, wallMs, cpuMs, work(), Blas.name(), logProbs)
            .with("batches", batches.size());
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
