package io.sparkattention.gpt;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.TrainingEvaluator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every block's backward — the tied embedding and head (wte's gradient: the scatter-add plus the
 * head's product), wpe's rows, ln_1, ln_2, ln_f, gelu_new (and the exact gelu), the Conv1D
 * projections, the causal attention on the direct and the tiled path, GPT-2's dropout sites — through
 * {@link GptTrainingNetwork}'s evaluator, against central finite differences of a float64
 * reference ({@link Float64Gpt#loss}) with the same dropout masks, on seeded random decoders of
 * odd sizes, several weighted blocks a run; and at GPT-2's 50,257-token vocabulary, whose head runs
 * {@value GptLmHead#HEAD_ROWS} rows a chunk.
 */
class GptTrainingGradientTest {

    static Stream<Arguments> cases() {
        return Stream.of(
            // name, layers, E, H, F, block lengths, block weights, dropout, activation
            Arguments.of("two blocks", 2, 12, 3, 20, new int[] {7, 5}, new double[] {1, 1}, 0.0, GptConfig.GELU_NEW),
            Arguments.of("dropout 0.3, weights, L = 1", 2, 12, 3, 20, new int[] {9, 4, 1},
                new double[] {1.7, 0.5, 1}, 0.3, GptConfig.GELU_NEW),
            Arguments.of("exact gelu, E 10 H 5, L 2", 1, 10, 5, 14, new int[] {2, 6}, new double[] {1, 2},
                0.0, GptConfig.GELU),
            Arguments.of("L 131 (direct attention in training up to 256)", 1, 8, 2, 12, new int[] {131},
                new double[] {1}, 0.0, GptConfig.GELU_NEW),
            Arguments.of("L 259 (tiled attention)", 1, 8, 2, 12, new int[] {259}, new double[] {1}, 0.0,
                GptConfig.GELU_NEW),
            Arguments.of("L 259 with dropout, beside L 3", 1, 8, 2, 12, new int[] {259, 3}, new double[] {1, 0.7},
                0.25, GptConfig.GELU_NEW));
    }

    static List<TokenBlock> randomBlocks(int[] lengths, double[] weights, int V, long seed) {
        Random r = new Random(seed);
        List<TokenBlock> blocks = new ArrayList<>();
        for (int b = 0; b < lengths.length; b++) {
            int[] ids = new int[lengths[b]];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = r.nextInt(V);
            }
            if (ids.length > 2) {
                ids[ids.length - 1] = ids[0];  // a repeated id: its wte row gets two tokens' scatter-adds
            }
            blocks.add(new TokenBlock(ids, weights[b], 100 + 7L * b));
        }
        return blocks;
    }

    @Test
    void gpt2sVocabularyRunsTheHeadAChunkAtATimeWithTheFloat64Gradient() {
        int V = 50_257, E = 8, L = 300;  // 299 predicting rows: chunks of 128, 128 and 43
        GptConfig c = new GptConfig(1, E, 2, L, V, 16, 1e-5f, GptConfig.GELU_NEW, true);
        GptTrainingNetwork net = new GptTrainingNetwork(c, 0);
        float[] theta = net.flatten(Float64Gpt.random(c, 12));
        List<TokenBlock> blocks = randomBlocks(new int[] {L}, new double[] {1.5}, V, 13);
        TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 0, 0);
        double loss = ev.add(blocks);
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        double[] grad = sums.toFlat();
        Map<String, double[]> p = Float64Gpt.doubles(net.weights(theta));
        assertEquals(Float64Gpt.loss(c, p, blocks, 0, 0, 0), loss, 2e-5 * loss, "loss");
        double[] wte = p.get(GptWeights.TOKEN_EMBEDDING);
        int[] ids = blocks.get(0).ids();
        // a row no block uses (the head's product alone), a used row (plus the scatter-add), the last row
        for (int row : new int[] {ids[0] == 7 ? 8 : 7, ids[200], V - 1}) {
            int i = row * E + 3;
            double keep = wte[i], h = 1e-5 * Math.max(1, Math.abs(keep));
            wte[i] = keep + h;
            double up = Float64Gpt.loss(c, p, blocks, 0, 0, 0);
            wte[i] = keep - h;
            double down = Float64Gpt.loss(c, p, blocks, 0, 0, 0);
            wte[i] = keep;
            double fd = (up - down) / (2 * h);
            assertEquals(fd, grad[i], 2e-3 * Math.abs(fd) + 1e-6, "wte row " + row);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void gradientsMatchFiniteDifferencesOfFloat64(String name, int layers, int E, int H, int F, int[] lengths,
                                                  double[] weights, double dropout, String activation) {
        int V = 23, longest = java.util.Arrays.stream(lengths).max().orElse(1);
        GptConfig c = new GptConfig(layers, E, H, longest + 3, V, F, 1e-5f, activation, true);
        GptTrainingNetwork net = new GptTrainingNetwork(c, dropout);
        float[] theta = net.flatten(Float64Gpt.random(c, 31L * longest + E));
        List<TokenBlock> blocks = randomBlocks(lengths, weights, V, longest);
        long seed = 11, step = 3;
        TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, seed, step);
        double loss = ev.add(blocks);
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        double[] grad = sums.toFlat();

        Map<String, double[]> p = Float64Gpt.doubles(net.weights(theta));
        double exact = Float64Gpt.loss(c, p, blocks, dropout, seed, step);
        assertEquals(exact, loss, 2e-5 * Math.abs(exact), name + ": loss");

        Random pick = new Random(longest);
        double global = 0;
        for (double g : grad) {
            global = Math.max(global, Math.abs(g));
        }
        for (ParameterTensor t : net.parameters()) {
            double[] values = p.get(t.name());
            double scale = 0;
            for (int i = 0; i < t.size(); i++) {
                scale = Math.max(scale, Math.abs(grad[t.offset() + i]));
            }
            if (t.name().endsWith("attn.c_attn.bias")) {
                scale = Math.max(scale, 1e-2 * global);  // its key third's true gradient is 0: float noise
            }
            for (int s = 0; s < 6; s++) {
                int i = t.name().equals(GptWeights.POSITION_EMBEDDING)
                    ? pick.nextInt(longest) * E + pick.nextInt(E) : pick.nextInt(t.size());
                double keep = values[i], h = 1e-5 * Math.max(1, Math.abs(keep));
                values[i] = keep + h;
                double up = Float64Gpt.loss(c, p, blocks, dropout, seed, step);
                values[i] = keep - h;
                double down = Float64Gpt.loss(c, p, blocks, dropout, seed, step);
                values[i] = keep;
                double fd = (up - down) / (2 * h);
                double got = grad[t.offset() + i];
                assertTrue(Math.abs(got - fd) <= 2e-3 * Math.max(scale, Math.abs(fd)) + 1e-7,
                    name + ": " + t.name() + "[" + i + "] = " + got + ", finite differences " + fd + " (tensor scale "
                        + scale + ")");
            }
        }
    }
}
