package io.sparkattention.examples.bench;

import io.sparkattention.kernel.Heads;
import io.sparkattention.nn.MultiHeadAttentionWeights;

import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The whole-layer benchmarks' problem, the same for every contender: seeded random weights of a
 * self-attention {@code nn.MultiheadAttention(E, H)} in PyTorch's layout, and the rows the Spark
 * stage generates on the executors ({@link RandomMatrix}, seed {@link SparkBenchmark#SEED}),
 * rebuilt here for the contenders that run in this JVM.
 */
public final class RandomLayer {

    /** Seed of the weights. */
    static final long WEIGHTS_SEED = 7;

    private RandomLayer() {
    }

    /**
     * Every weight and bias uniform in ±1/√E ({@code nn.Linear}'s default bound), biases included
     * so the additions are part of the work.
     *
     * @throws IllegalArgumentException when {@code numHeads} does not divide {@code embedDim}
     */
    public static MultiHeadAttentionWeights weights(int embedDim, int numHeads) {
        Heads.headDim(embedDim, numHeads, "numHeads", "embedDim");
        SplittableRandom random = new SplittableRandom(WEIGHTS_SEED);
        double bound = 1 / Math.sqrt(embedDim);
        int square = Math.multiplyExact(embedDim, embedDim);
        float[] q = uniform(square, bound, random), k = uniform(square, bound, random);
        float[] v = uniform(square, bound, random), out = uniform(square, bound, random);
        float[] qb = uniform(embedDim, bound, random), kb = uniform(embedDim, bound, random);
        float[] vb = uniform(embedDim, bound, random), ob = uniform(embedDim, bound, random);
        return MultiHeadAttentionWeights.of(embedDim, numHeads, embedDim, embedDim, q, k, v, qb, kb, vb, out, ob);
    }

    /**
     * Rows {@code 0 … rows−1} of the stage's generated {@code query} column: L×E each, row-major,
     * the same values the executors generate from the row ids.
     */
    public static float[][] rows(int rows, int seqLen, int embedDim) {
        int size = Math.multiplyExact(seqLen, embedDim);
        float[][] x = new float[rows][];
        IntStream.range(0, rows).parallel()
            .forEach(id -> x[id] = UniformInputs.uniform(size, RandomMatrix.random(SparkBenchmark.SEED, id)));
        return x;
    }

    private static float[] uniform(int size, double bound, SplittableRandom random) {
        float[] w = new float[size];
        for (int i = 0; i < size; i++) {
            w[i] = (float) ((random.nextDouble() * 2 - 1) * bound);
        }
        return w;
    }
}
