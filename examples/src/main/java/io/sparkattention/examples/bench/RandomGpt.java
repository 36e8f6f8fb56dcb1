package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptWeights;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The language-model benchmarks' model, the same for every contender: a GPT-2 of the given shape
 * with seeded random weights drawn as Hugging Face's {@code GPT2PreTrainedModel._init_weights}
 * draws them, so nothing is downloaded: every matrix and embedding normal(0, 0.02), each
 * residual projection ({@code attn.c_proj}, {@code mlp.c_proj}) normal(0, 0.02/√(2·n_layer)),
 * biases 0, LayerNorm weights 1 and biases 0.
 */
public final class RandomGpt {

    /** Seed of the weights. */
    static final long SEED = 7;
    /** GPT-2's {@code initializer_range}. */
    static final double INIT_STD = 0.02;

    private RandomGpt() {
    }

    /** GPT-2 small's shape: 12 layers, 768 wide, 12 heads, 1,024 positions, 50,257 tokens, tied head. */
    public static GptConfig gpt2Small() {
        return new GptConfig(12, 768, 12, 1024, 50257, 4 * 768, 1e-5f, GptConfig.GELU_NEW, true);
    }

    /** Seeded weights of {@code config}; each tensor from a generator of its own, so any order gives the same. */
    public static GptWeights weights(GptConfig config) {
        double residual = INIT_STD / Math.sqrt(2.0 * config.layers());
        Map<String, float[]> tensors = new LinkedHashMap<>();
        long stream = 0;
        for (Map.Entry<String, long[]> e : GptWeights.shapes(config).entrySet()) {
            String name = e.getKey();
            long[] shape = e.getValue();
            int size = Math.toIntExact(shape.length == 1 ? shape[0] : Math.multiplyExact(shape[0], shape[1]));
            float[] t = new float[size];
            SplittableRandom random = new SplittableRandom(SEED * 1_000_003 + stream++);
            if (name.contains(".ln_") || name.startsWith("ln_")) {
                if (name.endsWith(".weight")) {
                    java.util.Arrays.fill(t, 1f);
                }
            } else if (shape.length == 2) {
                double std = name.endsWith("c_proj.weight") ? residual : INIT_STD;
                for (int i = 0; i < size; i++) {
                    t[i] = (float) (random.nextGaussian() * std);
                }
            }
            tensors.put(name, t);
        }
        return GptWeights.of(config, tensors);
    }

    /** The weights as PyTorch's contender takes them. */
    public static TorchLm.Weights torch(GptWeights weights) {
        GptConfig c = weights.config();
        return new TorchLm.Weights(weights.stateDict(), GptWeights.shapes(c), c.heads(), c.layerNormEps(),
            c.activation());
    }
}
