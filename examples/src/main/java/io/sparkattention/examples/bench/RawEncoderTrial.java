package io.sparkattention.examples.bench;

import io.sparkattention.kernel.Blas;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;

import java.util.concurrent.ForkJoinPool;

/**
 * The raw encoder: {@link BertEncoder#forward(int[])} on each text's own ids, unpadded, the texts
 * shared out to T threads one at a time in input order (each thread takes the next text when it
 * finishes one, as Spark's task slots take the next row), each text's states pooled into its
 * sentence embedding. One untimed pass runs when the trial is made.
 */
final class RawEncoderTrial implements Trial {

    private final BertEncoder encoder;
    private final EncoderTexts texts;
    private final int threads;
    private final ForkJoinPool pool;
    private final SentenceEmbeddings embeddings;

    RawEncoderTrial(BertEncoder encoder, EncoderTexts texts, int threads) {
        this.encoder = encoder;
        this.texts = texts;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.embeddings = new SentenceEmbeddings(texts.count());
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
        RowThreads.run(pool, threads, ids.length,
            () -> i -> embeddings.pool(i, encoder.forward(ids[i]), 0, ids[i].length, hidden), "raw encoder");
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
            .with("checksum", checksum);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
