package io.sparkattention.examples.bench;

/**
 * A GPT-2 language model training on libtorch ({@link TorchRuntime#lmTrainer}), as a PyTorch
 * training loop of Hugging Face's {@code GPT2LMHeadModel} runs it: the train-lm benchmark's PyTorch
 * contender ({@code bench --train-lm --peer torch}). One step: zeroed gradients, forward (no
 * dropout), the loss, backward (autograd), {@code clip_grad_norm_}, AdamW with decay on 2-D tensors
 * only (or Adam), the learning rate of Hugging Face's linear schedule with warmup.
 */
public interface TorchLmTrainer extends AutoCloseable {

    /**
     * How the model trains.
     *
     * @param solver      {@code adamw} (decay on every 2-D tensor: wte, wpe, the projection
     *                    matrices) or {@code adam} (no decay)
     * @param stepSize    the peak learning rate
     * @param weightDecay AdamW's decoupled decay (ignored by adam)
     * @param warmupSteps steps of the linear warmup (the first step's rate is 0 when > 0)
     * @param totalSteps  the schedule's length: the rate falls linearly to 0 at this step
     * @param maxGradNorm global gradient norm clipped to (0: no clipping)
     */
    record Spec(String solver, double stepSize, double weightDecay, int warmupSteps, int totalSteps,
                double maxGradNorm) {

        /** torch.optim.AdamW's defaults. */
        public static final double BETA1 = 0.9, BETA2 = 0.999, EPSILON = 1e-8;

        public Spec {
            if (!"adamw".equals(solver) && !"adam".equals(solver)) {
                throw new IllegalArgumentException("solver must be adamw or adam, got " + solver);
            }
            if (!(stepSize > 0) || weightDecay < 0 || warmupSteps < 0 || totalSteps < 1 || maxGradNorm < 0) {
                throw new IllegalArgumentException("stepSize " + stepSize + ", weightDecay " + weightDecay
                    + ", warmupSteps " + warmupSteps + ", totalSteps " + totalSteps + ", maxGradNorm " + maxGradNorm
                    + ": need stepSize > 0, totalSteps >= 1 and the others >= 0");
            }
        }

        /** The learning rate of step {@code t} (0-based): Hugging Face's get_linear_schedule_with_warmup. */
        public double rate(long t) {
            if (t < warmupSteps) {
                return stepSize * t / Math.max(1, warmupSteps);
            }
            return stepSize * Math.max(0.0, (double) (totalSteps - t) / Math.max(1, totalSteps - warmupSteps));
        }

        /** The decoupled decay the optimiser applies (0 for adam). */
        public double decay() {
            return "adamw".equals(solver) ? weightDecay : 0;
        }
    }

    /**
     * One optimiser step on {@code rows}: each row one sequence (rows of different lengths are
     * right-padded with a mask, as Hugging Face's collator pads them), the loss the sum of every
     * row's next-token −log-likelihood over the sum of its predicted tokens (L − 1 a row).
     *
     * @return the loss before the update
     */
    double step(int[][] rows);

    /** The loss of {@code rows} at the current weights, without a step. */
    double loss(int[][] rows);

    /** A parameter's current value by its Hugging Face name, Conv1D's {@code [in, out]} layout. */
    float[] parameter(String name);

    @Override
    void close();
}
