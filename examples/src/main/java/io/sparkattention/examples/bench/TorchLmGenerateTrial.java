package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;

/**
 * PyTorch 2.7.1 generating greedily with its KV cache ({@link TorchLm#generateGreedy}): the
 * prompts in calls of B, one after the other, each call on the runtime's intra-op threads.
 */
final class TorchLmGenerateTrial implements Trial {

    private final TorchRuntime runtime;
    private final TorchLm lm;
    private final GptConfig config;
    private final int[][] prompts;
    private final int batch, newTokens;
    private final int[][] generated;

    TorchLmGenerateTrial(TorchRuntime runtime, TorchLm lm, GptConfig config, int[][] prompts, int batch,
                         int newTokens) {
        if (prompts.length % batch != 0) {
            throw new IllegalArgumentException(prompts.length + " prompts do not split into calls of " + batch);
        }
        this.runtime = runtime;
        this.lm = lm;
        this.config = config;
        this.prompts = prompts;
        this.batch = batch;
        this.newTokens = newTokens;
        this.generated = new int[prompts.length][];
        runOnce();
    }

    /** Each prompt's new ids of the last pass (not copied: read only). */
    int[][] generated() {
        return generated;
    }

    @Override
    public void runOnce() {
        for (int call = 0; call < prompts.length / batch; call++) {
            int[][] group = new int[batch][];
            System.arraycopy(prompts, call * batch, group, 0, batch);
            System.arraycopy(lm.generateGreedy(group, newTokens), 0, generated, call * batch, batch);
        }
    }

    @Override
    public boolean shortRun() {
        return LmWork.generation(config, prompts.length, prompts[0].length, newTokens)
            <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        return LmLines.generation("torch_lm_generate", batch, prompts, newTokens, runtime.threads(), wallMs, cpuMs,
            LmWork.generation(config, prompts.length, prompts[0].length, newTokens), runtime.version(), generated)
            .withAll(runtime.settings());
    }

    @Override
    public void close() {
        // the runtime's model is the benchmark's, closed by it
    }
}
