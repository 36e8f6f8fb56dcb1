package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;

/**
 * The LM head alone, as the decoder runs it ({@code bench --lm}, mode {@code lm_head}): the
 * product {@code logits = h·wteᵀ} through a {@link LinearWeight} over the tied embedding (V×E) on
 * the JVM's projection kernel, in calls of as many rows as the decoder's head takes at once, the
 * calls shared out to T threads. Timed beside the contender whose head it stands for, its median
 * over the contender's is the head's share of that contender's time ({@code head_share_of_time});
 * the logsumexp over each row's V logits is not included.
 */
final class LmHeadTrial implements Trial {

    /** Seed of the head's random input rows (their values do not change its time). */
    static final long SEED = 11;

    private final GptConfig config;
    private final LinearWeight head;
    private final int rowsPerCall, calls, threads;
    private final ForkJoinPool pool;
    private final float[] input;
    private final ThreadLocal<float[]> logits;
    private volatile float sink;

    /**
     * @param rowsPerCall rows per product (the scorer's head batch, or a generation call's prompts)
     * @param calls       products per repetition
     */
    LmHeadTrial(GptDecoder decoder, int rowsPerCall, int calls, int threads) {
        this.config = decoder.config();
        GptWeights w = decoder.weights();
        this.head = LinearWeight.of(LinearKernel.get(), w.headWeight(), config.vocabSize(), config.hidden(), null);
        this.rowsPerCall = rowsPerCall;
        this.calls = calls;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.input = UniformInputs.uniform(rowsPerCall * config.hidden(), new SplittableRandom(SEED));
        this.logits = ThreadLocal.withInitial(() -> new float[rowsPerCall * config.vocabSize()]);
        runOnce();
    }

    @Override
    public void runOnce() {
        RowThreads.run(pool, threads, calls, () -> call -> {
            float[] out = logits.get();
            head.apply(input, rowsPerCall, out);
            sink += out[call % out.length];
        }, "lm_head");
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    private double work() {
        return LmWork.head(config, rowsPerCall * calls);
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        if (!Float.isFinite(sink)) {
            throw new IllegalStateException("the head produced a non-finite logit");
        }
        return BenchResult.timed("lm_head", threads, wallMs, work(), head.kernel().name())
            .withCpuTimes(cpuMs, work())
            .with("rows_per_call", rowsPerCall)
            .with("calls", calls);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}
