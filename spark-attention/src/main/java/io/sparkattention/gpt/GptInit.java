package io.sparkattention.gpt;

import io.sparkattention.nn.CounterRandom;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * GPT-2's initialisation (Hugging Face's {@code GPT2PreTrainedModel._init_weights}, nanoGPT's):
 * every Conv1D weight and both embeddings normal(0, {@value #STD}); the residual projections
 * ({@code attn.c_proj.weight}, {@code mlp.c_proj.weight}) normal(0, {@value #STD}/√(2·nLayer));
 * biases 0; LayerNorm weights 1 and biases 0.
 *
 * <p><b>The draws</b> come from {@link CounterRandom} rather than a sequential generator: value
 * e of the tensor at index i (in {@link GptWeights#shapes} order) is a pure function of (seed, i,
 * e), a Box–Muller normal from the uniforms 2e and 2e + 1 of the key (seed, {@value #DOMAIN}, i),
 * with {@link StrictMath}'s log, sqrt and cos. So the weights do not depend on the order the
 * tensors are filled in, nor on the JVM (java.util's and SplittableRandom's Gaussians are
 * specified per class and may change between releases; StrictMath's functions are fdlibm's, the
 * same bits everywhere), and a model built from a config and a seed on the driver is the one any
 * executor would build.
 */
public final class GptInit {

    /** GPT-2's {@code initializer_range}. */
    public static final double STD = 0.02;
    /** The counter key's first word: initialisation's domain, apart from dropout's steps. */
    static final long DOMAIN = 0x6770743269L;

    private GptInit() {
    }

    /** The weights of {@code config} (head tied or not) drawn from {@code seed}. */
    public static GptWeights weights(GptConfig config, long seed) {
        Objects.requireNonNull(config, "config");
        double residual = STD / Math.sqrt(2.0 * config.layers());
        Map<String, float[]> t = new LinkedHashMap<>();
        int index = 0;
        for (Map.Entry<String, long[]> e : GptWeights.shapes(config).entrySet()) {
            String name = e.getKey();
            long size = 1;
            for (long s : e.getValue()) {
                size *= s;
            }
            float[] v = new float[(int) size];
            if (e.getValue().length >= 2) {
                boolean projection = name.endsWith("attn.c_proj.weight") || name.endsWith("mlp.c_proj.weight");
                normal(v, seed, index, projection ? residual : STD);
            } else if (name.endsWith(".weight")) {
                java.util.Arrays.fill(v, 1f);  // a LayerNorm's scale
            }
            t.put(name, v);
            index++;
        }
        return GptWeights.of(config, t);
    }

    /** {@code v[e] = std·N(0, 1)} from the key of (seed, tensor), per the class comment. */
    private static void normal(float[] v, long seed, int tensor, double std) {
        long key = CounterRandom.key(seed, DOMAIN, tensor, 0);
        for (int e = 0; e < v.length; e++) {
            double u1 = CounterRandom.uniform(key, 2L * e);
            double u2 = CounterRandom.uniform(key, 2L * e + 1);
            double z = StrictMath.sqrt(-2.0 * StrictMath.log(1.0 - u1)) * StrictMath.cos(2.0 * Math.PI * u2);
            v[e] = (float) (std * z);
        }
    }
}
