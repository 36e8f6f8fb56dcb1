package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptGeneration;
import io.sparkattention.kernel.Blas;

import java.util.concurrent.ForkJoinPool;

/**
 * The library generating greedily ({@code bench --lm}, mode {@code lm_generate}): the prompts cut
 * into calls of B ({@link GptDecoder#generate}, each call's rows through the projections together
 * with a KV cache per row), the calls shared out to T threads one at a time ({@link RowThreads}),
 * as Spark's task slots share a stage's rows. One untimed pass runs when the trial is made.
 */
final class LmGenerateTrial implements Trial {

    private final GptDecoder decoder;
    private final int[][] prompts;
    private final int batch, newTokens, threads;
    private final ForkJoinPool pool;
    private final int[][] generated;

    /**
     * @param prompts   the prompts, a multiple of {@code batch} of them
     * @param batch     prompts per call
     * @param newTokens new ids per prompt
     */
    LmGenerateTrial(GptDecoder decoder, int[][] prompts, int batch, int newTokens, int threads) {
        if (prompts.length % batch != 0) {
            throw new IllegalArgumentException(prompts.length + " prompts do not split into calls of " + batch);
        }
        this.decoder = decoder;
        this.prompts = prompts;
        this.batch = batch;
        this.newTokens = newTokens;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.generated = new int[prompts.length][];
        runOnce();
    }

    /** Each prompt's new ids of the last pass (not copied: read only). */
    int[][] generated() {
        return generated;
    }

    @Override
    public void runOnce() {
        GptGeneration greedy = GptGeneration.greedy(newTokens);
        RowThreads.run(pool, threads, prompts.length / batch, () -> call -> {
            int[][] group = new int[batch][];
            long[] keys = new long[batch];
            for (int j = 0; j < batch; j++) {
                group[j] = prompts[call * batch + j];
                keys[j] = call * batch + j;
            }
            int[][] out = decoder.generate(group, keys, greedy);
            System.arraycopy(out, 0, generated, call * batch, batch);
        }, "lm_generate");
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    double work() {
        return LmWork.generation(decoder.config(), prompts.length, prompts[0].length, newTokens);
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        return LmLines.generation("lm_generate", batch, prompts, newTokens, threads, wallMs, cpuMs, work(), Blas.name(),
            generated);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
