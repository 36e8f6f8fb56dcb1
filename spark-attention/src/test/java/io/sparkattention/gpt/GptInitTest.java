package io.sparkattention.gpt;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GPT-2's initialisation: normal(0, 0.02) for the embeddings and Conv1D weights, the residual
 * projections at 0.02/√(2·nLayer), biases 0, LayerNorms 1 and 0; the same weights for the same
 * seed, other weights for another; a model a decoder runs.
 */
class GptInitTest {

    private static final GptConfig CONFIG = new GptConfig(4, 64, 4, 128, 500, 256, 1e-5f, GptConfig.GELU_NEW, true);

    @Test
    void drawsGpt2sScalesTensorByTensor() {
        GptWeights w = GptInit.weights(CONFIG, 42);
        double residual = GptInit.STD / Math.sqrt(2.0 * CONFIG.layers());
        for (Map.Entry<String, float[]> e : w.stateDict().entrySet()) {
            String name = e.getKey();
            float[] v = e.getValue();
            if (GptWeights.shapes(CONFIG).get(name).length == 2) {
                boolean projection = name.endsWith("c_proj.weight");
                double std = projection ? residual : GptInit.STD;
                double mean = Arrays.stream(toDoubles(v)).sum() / v.length;
                double sd = Math.sqrt(Arrays.stream(toDoubles(v)).map(x -> x * x).sum() / v.length);
                double tolerance = 5 / Math.sqrt(v.length);  // a few standard errors of the estimates
                assertEquals(0, mean / std, tolerance, name + ": mean");
                assertEquals(1, sd / std, tolerance, name + ": standard deviation");
            } else {
                float expected = name.endsWith(".weight") ? 1f : 0f;
                for (float x : v) {
                    assertEquals(expected, x, 0f, name);
                }
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameWeightsAndAnotherSeedOthers() {
        GptWeights a = GptInit.weights(CONFIG, 7), b = GptInit.weights(CONFIG, 7), c = GptInit.weights(CONFIG, 8);
        for (String name : a.stateDict().keySet()) {
            assertArrayEquals(a.tensor(name), b.tensor(name), name);
        }
        assertFalse(Arrays.equals(a.tensor("wte.weight"), c.tensor("wte.weight")));
        assertFalse(Arrays.equals(a.tensor("h.0.mlp.c_fc.weight"), a.tensor("h.1.mlp.c_fc.weight")),
            "each tensor draws from its own key");
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0);
        assertArrayEquals(net.flatten(a), net.initialParameters(7));
    }

    @Test
    void anInitialisedModelPredictsNearlyUniformly() {
        double[] lp = new GptDecoder(GptInit.weights(CONFIG, 3)).tokenLogProbs(new int[] {5, 17, 400, 2, 99}, 1);
        for (double x : lp) {
            // logits of standard deviation 0.02·√E ≈ 0.16 (a unit-scale h against wte): within 0.5 of −log V
            assertTrue(Math.abs(x + Math.log(CONFIG.vocabSize())) < 0.5, "log-probability " + x + " near −log V");
        }
    }

    private static double[] toDoubles(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }
}
