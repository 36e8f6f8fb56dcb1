package io.sparkattention.examples.bench;

import java.util.Map;
import java.util.Objects;

/**
 * A GPT-2 language model on libtorch ({@link TorchRuntime#lm}), as Hugging Face's
 * {@code GPT2LMHeadModel} runs it in float32 without gradients: the language-model benchmark's
 * PyTorch contender ({@code bench --lm --peer torch}). Everything that crosses the class-loader
 * boundary is a JDK type or a type of this package.
 */
public interface TorchLm extends AutoCloseable {

    /**
     * A GPT-2's parameters under Hugging Face's names without the {@code transformer.} prefix
     * ({@code wte.weight}, {@code h.0.attn.c_attn.weight}, …), Conv1D's {@code [in, out]} layout;
     * the head is {@code wte.weight} (tied) unless {@code lm_head.weight} is among them.
     *
     * @param tensors      every parameter by name, row-major
     * @param shapes       every parameter's shape, same names
     * @param heads        attention heads
     * @param layerNormEps ε of every LayerNorm
     * @param activation   the feed-forward's activation: {@code gelu_new} (tanh form) or {@code gelu} (erf)
     */
    record Weights(Map<String, float[]> tensors, Map<String, long[]> shapes, int heads, float layerNormEps,
                   String activation) {
        public Weights {
            Objects.requireNonNull(tensors, "tensors");
            Objects.requireNonNull(shapes, "shapes");
            if (!tensors.keySet().equals(shapes.keySet())) {
                throw new IllegalArgumentException("tensors and shapes name different parameters");
            }
            if (!"gelu_new".equals(activation) && !"gelu".equals(activation)) {
                throw new IllegalArgumentException("activation must be gelu_new or gelu, got " + activation);
            }
        }
    }

    /**
     * One scoring batch's inputs, made once and run many times: the rows right-padded to the
     * longest, with an attention mask over the padding beside the causal one, as Hugging Face's
     * collator and {@code GPT2LMHeadModel} take them.
     *
     * @param ids the batch's rows, unpadded (each of at least one id)
     */
    ScoreBatch scoreBatch(int[][] ids);

    /**
     * Greedy generation with the key/value cache, as {@code generate(do_sample=False)} runs it:
     * one forward over the prompts, then one forward of the B new ids per further token, each
     * layer's keys and values concatenated onto the cache.
     *
     * @param prompts   B prompts of one length (no padding)
     * @param newTokens new ids per prompt (at least 1)
     * @return each prompt's new ids
     */
    int[][] generateGreedy(int[][] prompts, int newTokens);

    @Override
    void close();

    /** One padded scoring batch. */
    interface ScoreBatch extends AutoCloseable {

        /** The longest row of the batch: the padded length. */
        int longest();

        /**
         * Runs the batch: per row of L ids, the L − 1 natural-log probabilities of ids[t] given
         * ids[&lt;t] (log-softmax of the logits in float32, as Hugging Face's loss takes them).
         */
        float[][] run();

        @Override
        void close();
    }
}
