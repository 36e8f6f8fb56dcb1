package io.sparkattention.examples.bench.torch;

import io.sparkattention.examples.bench.TorchLm;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptGeneration;
import io.sparkattention.gpt.GptWeights;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PyTorch peer's GPT-2 computes what the library's decoder computes: on a small random GPT
 * (every tensor random, biases and LayerNorms included), its log-probabilities over ragged rows
 * right-padded into one batch against {@link GptDecoder#tokenLogProbs} row by row, and its greedy
 * ids with the KV cache against {@link GptDecoder#generate}.
 */
class DjlGptTest {

    private static final GptConfig CONFIG = new GptConfig(2, 48, 4, 128, 300, 4 * 48, 1e-5f, GptConfig.GELU_NEW, true);

    private static DjlTorchRuntime runtime;
    private static GptDecoder library;
    private static TorchLm.Weights weights;

    @BeforeAll
    static void start() {
        runtime = new DjlTorchRuntime();
        SplittableRandom random = new SplittableRandom(5);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        Map<String, long[]> shapes = GptWeights.shapes(CONFIG);
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            long size = 1;
            for (long d : e.getValue()) {
                size *= d;
            }
            float[] t = new float[(int) size];
            boolean norm = e.getKey().contains("ln_") && e.getKey().endsWith(".weight");
            // embeddings wide enough that the greedy choices are clear of float32 rounding
            double scale = e.getKey().equals("wte.weight") ? 0.3 : 0.1;
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) ((norm ? 1 : 0) + random.nextGaussian() * scale);
            }
            tensors.put(e.getKey(), t);
        }
        library = new GptDecoder(GptWeights.of(CONFIG, tensors));
        weights = new TorchLm.Weights(library.weights().stateDict(), shapes, CONFIG.heads(), CONFIG.layerNormEps(),
            CONFIG.activation());
    }

    @Test
    void paddedScoringMatchesTheLibraryRowByRow() {
        int[] lengths = {2, 3, 17, 64, 1, 128, 40};
        SplittableRandom random = new SplittableRandom(9);
        int[][] ids = new int[lengths.length][];
        for (int r = 0; r < ids.length; r++) {
            ids[r] = random.ints(lengths[r], 0, CONFIG.vocabSize()).toArray();
        }
        try (TorchLm lm = runtime.lm(weights); TorchLm.ScoreBatch batch = lm.scoreBatch(ids)) {
            assertEquals(128, batch.longest());
            float[][] theirs = batch.run();
            for (int r = 0; r < ids.length; r++) {
                double[] ours = library.tokenLogProbs(ids[r], CONFIG.positions() - 1);
                assertEquals(ours.length, theirs[r].length, "row " + r);
                for (int t = 0; t < ours.length; t++) {
                    assertTrue(Math.abs(ours[t] - theirs[r][t]) < 1e-4,
                        "row " + r + " token " + (t + 1) + ": library " + ours[t] + ", torch " + theirs[r][t]);
                }
            }
            // a second run of the same inputs gives the same numbers
            float[][] again = batch.run();
            for (int r = 0; r < ids.length; r++) {
                assertArrayEquals(theirs[r], again[r]);
            }
        }
    }

    @Test
    void greedyGenerationWithTheCacheMatchesTheLibrary() {
        SplittableRandom random = new SplittableRandom(13);
        int[][] prompts = new int[3][];
        for (int r = 0; r < prompts.length; r++) {
            prompts[r] = random.ints(10, 0, CONFIG.vocabSize()).toArray();
        }
        int newTokens = 20;
        int[][] ours = library.generate(prompts, new long[] {0, 1, 2}, GptGeneration.greedy(newTokens));
        try (TorchLm lm = runtime.lm(weights)) {
            int[][] theirs = lm.generateGreedy(prompts, newTokens);
            for (int r = 0; r < prompts.length; r++) {
                assertArrayEquals(ours[r], theirs[r], "prompt " + r);
            }
            // one prompt alone gets the ids it gets in company
            assertArrayEquals(theirs[1], lm.generateGreedy(new int[][] {prompts[1]}, newTokens)[0]);
        }
    }
}
