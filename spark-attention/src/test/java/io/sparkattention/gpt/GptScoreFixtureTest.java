package io.sparkattention.gpt;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gpt_score fixture (PyTorch autograd in float64 from float32 weights; rows of 2 … 64 tokens,
 * up to n_positions): every row's log_prob within 1e-5 relative, row 0's logits at every position
 * within 1e-5 of the row's largest, on the JVM's kernels and on BLAS projections.
 */
class GptScoreFixtureTest {

    @Test
    void logProbsAndLogitsMatchPyTorchFloat64() throws IOException {
        GptFixture f = GptFixture.load("gpt_score");
        for (String kernel : new String[] {null, "blas"}) {
            GptDecoder decoder = new GptDecoder(f.weights, kernel);
            double[] expected = f.doubles("expected.log_prob");
            double[][] batch = decoder.tokenLogProbs(f.rows, 1);
            for (int r = 0; r < f.rows.length; r++) {
                double[] lp = decoder.tokenLogProbs(f.rows[r], 1);
                assertEquals(f.rows[r].length - 1, lp.length);
                double sum = Arrays.stream(lp).sum();
                assertTrue(Math.abs(sum - expected[r]) <= 1e-5 * Math.abs(expected[r]), kernel + " row " + r
                    + ": log_prob " + sum + " vs " + expected[r]);
                assertArrayEquals(lp, batch[r], kernel + " row " + r + ": stacked with the others, the same bits");
            }
            int L = f.rows[0].length, V = f.config.vocabSize();
            float[] logits = decoder.logits(f.rows[0]);
            double[] all = f.doubles("expected.logits");
            assertEquals(L * V, all.length);
            for (int t = 0; t < L; t++) {
                GptFixture.assertRowClose(Arrays.copyOfRange(all, t * V, (t + 1) * V), logits, t * V, 1e-5,
                    kernel + " logits at position " + t);
            }
        }
    }
}
