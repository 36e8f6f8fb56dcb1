package io.sparkattention.examples.bench;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * PyTorch as a peer of the benchmarks: libtorch's CPU kernels through DJL, implemented by the
 * torch peer module ({@code examples/torch-peer}) and loaded by {@link TorchPeers} in a class
 * loader of its own, so its DJL version never meets the tokenizers' on the command line's class
 * path. Everything that crosses the boundary is a JDK type or a type of this package.
 */
public interface TorchRuntime {

    /** What runs, e.g. {@code "pytorch 2.7.1 (djl 0.36.0)"}. */
    String version();

    /** libtorch's intra-op threads. */
    int threads();

    /**
     * The environment variables that change how libtorch's kernels run, printed beside its figures
     * when set: OpenMP's thread count and waiting policy (libgomp spins for a while after each
     * parallel region before it sleeps), MKL's thread count and instruction-set choice.
     */
    List<String> ENVIRONMENT = List.of("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
        "MKL_NUM_THREADS", "MKL_ENABLE_INSTRUCTIONS", "MKL_DEBUG_CPU_TYPE", "KMP_BLOCKTIME");

    /**
     * How the peer runs, for its output lines: {@code torch_intra_op_threads},
     * {@code torch_inter_op_threads}, {@code torch_blas} (whose products libtorch's BLAS calls run:
     * {@code mkl}, or {@code openblas-first} when the system's OpenBLAS was loaded before the peer
     * and may have taken them) and every variable of {@link #ENVIRONMENT} that is set.
     */
    Map<String, Object> settings();

    /** A BERT encoder on libtorch with these weights (copied into libtorch's memory). */
    Encoder encoder(BertTensors weights);

    /**
     * A BERT classifier on libtorch, every parameter trainable, starting from these weights and
     * this head.
     */
    FineTuner fineTuner(BertTensors weights, FineTuneSpec spec);

    /** A GPT-2 language model on libtorch with these weights (copied into libtorch's memory). */
    TorchLm lm(TorchLm.Weights weights);

    /**
     * A GPT-2 language model training on libtorch from these weights (the head tied to
     * {@code wte.weight}), every parameter trainable.
     */
    TorchLmTrainer lmTrainer(TorchLm.Weights weights, TorchLmTrainer.Spec spec);

    /**
     * The attention classifier training on libtorch from this state_dict (the six tensors under
     * {@code nn.AttentionClassifierNetwork}'s names, row-major, copied), every parameter trainable.
     */
    TorchClassifierTrainer classifierTrainer(Map<String, float[]> initial, TorchClassifierTrainer.Spec spec);

    /**
     * A BERT encoder's parameters under Hugging Face's {@code BertModel} names, PyTorch's layout.
     *
     * @param tensors      every parameter by name, row-major
     * @param shapes       every parameter's shape, same names
     * @param heads        attention heads
     * @param layerNormEps ε of every LayerNorm
     */
    record BertTensors(Map<String, float[]> tensors, Map<String, long[]> shapes, int heads, float layerNormEps) {
        public BertTensors {
            Objects.requireNonNull(tensors, "tensors");
            Objects.requireNonNull(shapes, "shapes");
            if (!tensors.keySet().equals(shapes.keySet())) {
                throw new IllegalArgumentException("tensors and shapes name different parameters");
            }
        }
    }

    /**
     * How the classifier trains, as Hugging Face fine-tunes: a linear head over the pooled states,
     * softmax cross-entropy, dropout on the embeddings, attention probabilities, both sublayer
     * outputs and the pooled vector, global gradient-norm clipping and AdamW whose weight decay
     * skips biases and LayerNorm weights. The learning rate is constant (the benchmark's steps
     * are past any warmup).
     *
     * @param headWeight  {@code classifier.weight}, K×E
     * @param headBias    {@code classifier.bias}, K
     * @param numClasses  K
     * @param cls         pool the [CLS] row (true) or the mean over each text's tokens (false)
     * @param stepSize    AdamW's learning rate
     * @param weightDecay AdamW's decoupled weight decay
     * @param beta1       AdamW's β₁
     * @param beta2       AdamW's β₂
     * @param epsilon     AdamW's ε
     * @param dropout     dropout probability (0: none)
     * @param maxGradNorm global gradient norm clipped to (0: no clipping)
     */
    record FineTuneSpec(float[] headWeight, float[] headBias, int numClasses, boolean cls, double stepSize,
                        double weightDecay, double beta1, double beta2, double epsilon, double dropout,
                        double maxGradNorm) {
        public FineTuneSpec {
            Objects.requireNonNull(headWeight, "headWeight");
            Objects.requireNonNull(headBias, "headBias");
            if (numClasses < 2 || headBias.length != numClasses || headWeight.length % numClasses != 0) {
                throw new IllegalArgumentException("head of " + headWeight.length + " weights and " + headBias.length
                    + " biases does not fit " + numClasses + " classes");
            }
            if (!(dropout >= 0 && dropout < 1)) {
                throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
            }
        }
    }

    /** The encoder on padded batches. */
    interface Encoder extends AutoCloseable {

        /**
         * One batch's inputs, made once and run many times: the texts padded to the longest with
         * an attention mask (token type 0), as Hugging Face's collator pads them.
         *
         * @param ids the batch's texts' ids, unpadded
         */
        Batch batch(int[][] ids);

        @Override
        void close();
    }

    /** One padded batch of the encoder. */
    interface Batch extends AutoCloseable {

        /** The longest text of the batch: the padded length. */
        int longest();

        /** Runs the batch: the last hidden states, B×longest×E row-major, padded rows included. */
        float[] run();

        @Override
        void close();
    }

    /** The classifier's training loop. */
    interface FineTuner extends AutoCloseable {

        /**
         * One optimiser step on one batch: zeroed gradients, forward in training mode (dropout
         * from libtorch's generator), mean cross-entropy, backward, clipping, AdamW.
         *
         * @param ids    the batch's texts' ids, unpadded (padded inside, with a mask)
         * @param labels each text's class in [0, K)
         * @return the batch's mean loss before the update
         */
        double step(int[][] ids, int[] labels);

        /**
         * The batch's mean cross-entropy at the current weights in evaluation mode (no dropout),
         * without a step.
         */
        double loss(int[][] ids, int[] labels);

        /** A parameter's current value by name ({@code classifier.weight} and {@code classifier.bias} included). */
        float[] parameter(String name);

        @Override
        void close();
    }
}
