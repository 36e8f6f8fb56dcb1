package io.sparkattention.gpt;

import io.sparkattention.nn.CounterRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link TokenSampler} against a plain reference of Hugging Face's order, written with a full sort:
 * logits / T, the top-k (ties with the k-th kept), the nucleus (the fewest best tokens whose
 * probability reaches top-p, at least one), then the token where the running probability first
 * passes the draw u (in id order without a nucleus, best first within one).
 */
class TokenSamplerTest {

    @ParameterizedTest(name = "T={0}, top-k={1}, top-p={2}")
    @CsvSource({
        "1.0, 0, 1.0",
        "0.7, 40, 1.0",
        "1.3, 0, 0.9",
        "0.5, 25, 0.6",
        "2.0, 0, 0.3",
        "1.0, 999, 0.999",
    })
    void choicesMatchAFullSortReference(double temperature, int topK, double topP) {
        int V = 997;
        TokenSampler sampler = new TokenSampler();
        Random rng = new Random(Double.hashCode(temperature) + 31 * topK);
        float[] logits = new float[V + 5];
        for (int trial = 0; trial < 200; trial++) {
            for (int j = 0; j < logits.length; j++) {
                logits[j] = (float) (rng.nextGaussian() * 3);
            }
            GptGeneration g = new GptGeneration(8, temperature, topK, topP, -1, trial, false);
            int chosen = sampler.choose(logits, 5, V, g, 77L, trial % 8);
            assertEquals(reference(logits, 5, V, g, 77L, trial % 8), chosen, "trial " + trial);
        }
    }

    private static int reference(float[] logits, int off, int V, GptGeneration g, long rowKey, int step) {
        Integer[] order = new Integer[V];
        for (int j = 0; j < V; j++) {
            order[j] = j;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer j) -> -logits[off + j]).thenComparingInt(j -> j));
        float floor = g.topK() > 0 && g.topK() < V ? logits[off + order[g.topK() - 1]] : Float.NEGATIVE_INFINITY;
        double max = logits[off + order[0]];
        double[] w = new double[V];
        double total = 0;
        for (int j = 0; j < V; j++) {
            w[j] = logits[off + j] >= floor ? Math.exp((logits[off + j] - max) / g.temperature()) : 0;
            total += w[j];
        }
        double u = CounterRandom.uniform(CounterRandom.key(g.seed(), step, rowKey, TokenSampler.SAMPLING_SITE), 0);
        if (g.topP() >= 1) {
            double sum = 0;
            for (int j = 0; j < V; j++) {
                sum += w[j];
                if (w[j] > 0 && sum > u * total) {
                    return j;
                }
            }
            throw new AssertionError("no token drawn");
        }
        double kept = 0;
        int size = 0;
        while (size < V && w[order[size]] > 0) {
            kept += w[order[size++]];
            if (kept >= g.topP() * total) {
                break;
            }
        }
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += w[order[i]];
            if (sum > u * kept) {
                return order[i];
            }
        }
        return order[size - 1];
    }
}
