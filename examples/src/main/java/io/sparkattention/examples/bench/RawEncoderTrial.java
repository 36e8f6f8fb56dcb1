package io.sparkattention.examples.bench;

import io.sparkattention.kernel.Blas;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.ml.feature.EncoderBatches;

import java.util.List;
import java.util.concurrent.ForkJoinPool;

/**
 * The raw encoder as the encoder stage runs it: the texts in input order cut into the stage's
 * batches ({@link EncoderBatches} with the stage's default bounds), each batch sorted by length
 * and encoded by one stacked forward, unpadded; the batches shared out to T threads one at a time
 * (each thread takes the next batch when it finishes one, as a task takes its next batch), each
 * text's states pooled into its sentence embedding. One untimed pass runs when the trial is made.
 */
final class RawEncoderTrial implements Trial {

    private final BertEncoder encoder;
    private final EncoderTexts texts;
    private final int threads;
    private final ForkJoinPool pool;
    private final SentenceEmbeddings embeddings;
    private final List<int[]> batches;

    RawEncoderTrial(BertEncoder encoder, EncoderTexts texts, int threads) {
        this.encoder = encoder;
        this.texts = texts;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.embeddings = new SentenceEmbeddings(texts.count());
        int[] lengths = new int[texts.count()];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = texts.ids()[i].length;
        }
        this.batches = EncoderBatches.defaults().split(lengths);
        runOnce();
    }

    /** The sentence embeddings of the last pass. */
    SentenceEmbeddings embeddings() {
        return embeddings;
    }

    @Override
    public void runOnce() {
        int[][] ids = texts.ids();
        int hidden = encoder.config().hidden();
        RowThreads.run(pool, threads, batches.size(), () -> b -> {
            int[] batch = batches.get(b);
            int[][] group = new int[batch.length][];
            for (int j = 0; j < batch.length; j++) {
                group[j] = ids[batch[j]];
            }
            float[][] states = EncoderBatches.encode(encoder, group);
            for (int j = 0; j < batch.length; j++) {
                embeddings.pool(batch[j], states[j], 0, group[j].length, hidden);
            }
        }, "raw encoder");
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    private double work() {
        BertConfig c = encoder.config();
        return BenchResult.encoderFlops(texts.ids(), c.layers(), c.hidden(), c.intermediate());
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        double checksum = embeddings.checksum();
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("raw encoder produced a non-finite output (checksum " + checksum + ")");
        }
        return BenchResult.encoder("encoder", texts, threads, wallMs, work(), Blas.name())
            .withCpuTimes(cpuMs, work())
            .with("checksum", checksum)
            .with("batches", batches.size());
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
