package io.sparkattention.gpt;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decoder against a float64 forward written from the specification ({@link Float64Gpt}) on
 * seeded random configs the fixtures do not cover: one token, lengths off the kernel's blocks,
 * rows past the direct path's 128 tokens (the tiled kernel), n_inner given and defaulted, the exact
 * GELU, an untied head; scoring stacked rows bit for bit as alone on the vector and BLAS
 * projections; the sliding window against Hugging Face's recipe in float64.
 */
class GptFloat64Test {

    /** layers, E, H, V, P, n_inner (0: null, 4E), activation, tied. */
    @ParameterizedTest(name = "{0} layers, E={1}, H={2}, V={3}, P={4}, inner={5}, {6}, tied={7}")
    @CsvSource({
        "2, 32, 4, 61, 200, 48, gelu_new, true",
        "1, 24, 3, 50, 160, 0, gelu, true",
        "3, 16, 2, 40, 140, 0, gelu_new, false",
    })
    void logitsAndLogProbsMatchFloat64(int layers, int E, int H, int V, int P, int inner, String activation,
                                       boolean tied) {
        GptConfig c = new GptConfig(layers, E, H, P, V, inner == 0 ? 4 * E : inner, 1e-5f, activation, tied);
        GptWeights w = Float64Gpt.random(c, 31L * layers + E);
        GptDecoder decoder = new GptDecoder(w);
        Random rng = new Random(E);
        for (int L : new int[] {1, 2, 17, 33, 129, P}) {
            int[] ids = rng.ints(L, 0, V).toArray();
            double[] exact = Float64Gpt.logits(w, ids);
            float[] logits = decoder.logits(ids);
            for (int t = 0; t < L; t++) {
                GptFixture.assertRowClose(Arrays.copyOfRange(exact, t * V, (t + 1) * V), logits, t * V, 1e-5,
                    "L=" + L + " position " + t);
            }
            double[] lp = decoder.tokenLogProbs(ids, 1);
            double[] lpExact = Float64Gpt.tokenLogProbs(w, ids);
            assertEquals(L - 1, lp.length);
            for (int t = 0; t < lp.length; t++) {
                assertEquals(lpExact[t], lp[t], 1e-5 * Math.max(1, Math.abs(lpExact[t])), "L=" + L + " token " + t);
            }
            double sum = Arrays.stream(lp).sum(), sumExact = Arrays.stream(lpExact).sum();
            assertEquals(sumExact, sum, 1e-5 * Math.max(1, Math.abs(sumExact)), "L=" + L + " log_prob");
        }
    }

    @ParameterizedTest(name = "projections on {0}")
    @ValueSource(strings = {"vector", "blas"})
    void aRowScoresTheSameBitsInAnyCompany(String kernel) {
        GptConfig c = new GptConfig(2, 32, 4, 150, 70, 128, 1e-5f, "gelu_new", true);
        GptDecoder decoder = new GptDecoder(Float64Gpt.random(c, 7), kernel);
        Random rng = new Random(3);
        int[][] rows = new int[9][];
        int[] lengths = {5, 0, 1, 150, 2, 140, 33, 400, 64};
        for (int r = 0; r < rows.length; r++) {
            rows[r] = rng.ints(lengths[r], 0, 70).toArray();
        }
        double[][] together = decoder.tokenLogProbs(rows, 100);
        int[][] reversed = new int[rows.length][];
        for (int r = 0; r < rows.length; r++) {
            reversed[r] = rows[rows.length - 1 - r];
        }
        double[][] backwards = decoder.tokenLogProbs(reversed, 100);
        for (int r = 0; r < rows.length; r++) {
            double[] alone = decoder.tokenLogProbs(rows[r], 100);
            assertEquals(Math.max(0, lengths[r] - 1), alone.length, "row " + r);
            assertArrayEquals(alone, together[r], "row " + r + " among the others");
            assertArrayEquals(alone, backwards[rows.length - 1 - r], "row " + r + " in reverse order");
        }
    }

    @ParameterizedTest(name = "stride {0}")
    @ValueSource(ints = {1, 17, 50, 99})
    void longRowsFollowHuggingFacesSlidingWindow(int stride) {
        GptConfig c = new GptConfig(2, 24, 2, 100, 53, 96, 1e-5f, "gelu_new", true);
        GptWeights w = Float64Gpt.random(c, 11);
        int[] ids = new Random(stride).ints(257, 0, 53).toArray();
        double[] lp = new GptDecoder(w).tokenLogProbs(ids, stride);
        double[] exact = Float64Gpt.slidingWindow(w, ids, stride);
        assertEquals(256, lp.length);
        for (int t = 0; t < lp.length; t++) {
            assertEquals(exact[t], lp[t], 1e-5 * Math.max(1, Math.abs(exact[t])), "token " + (t + 1));
        }
        double[] firstWindow = new GptDecoder(w).tokenLogProbs(Arrays.copyOf(ids, 100), stride);
        assertArrayEquals(firstWindow, Arrays.copyOf(lp, 99), "the first window scores its tokens as a row alone");
    }

    @Test
    void attentionProbabilitiesAreCausalAndMatchFloat64Rows() {
        GptConfig c = new GptConfig(2, 16, 2, 64, 30, 64, 1e-5f, "gelu_new", true);
        GptDecoder decoder = new GptDecoder(Float64Gpt.random(c, 5));
        int L = 9;
        float[] p = decoder.attentionProbabilities(new Random(1).ints(L, 0, 30).toArray(), 1);
        assertEquals(2 * L * L, p.length);
        for (int h = 0; h < 2; h++) {
            for (int i = 0; i < L; i++) {
                double sum = 0;
                for (int j = 0; j < L; j++) {
                    float v = p[(h * L + i) * L + j];
                    if (j > i) {
                        assertEquals(0f, v, "head " + h + " query " + i + " sees no later key " + j);
                    }
                    sum += v;
                }
                assertEquals(1.0, sum, 1e-5, "head " + h + " query " + i);
            }
        }
    }

    @Test
    void aSerializedDecoderPreparesItselfAgainWithTheSameBits() throws Exception {
        GptConfig c = new GptConfig(2, 16, 2, 64, 30, 64, 1e-5f, "gelu_new", true);
        GptDecoder decoder = new GptDecoder(Float64Gpt.random(c, 9));
        int[] ids = new Random(4).ints(20, 0, 30).toArray();
        float[] before = decoder.logits(ids);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(decoder);
        }
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(
            bytes.toByteArray()))) {
            GptDecoder copy = (GptDecoder) in.readObject();
            assertEquals(c, copy.config());
            assertArrayEquals(before, copy.logits(ids));
        }
    }

    @Test
    void badRowsAndStridesAreRefusedNamingThem() {
        GptConfig c = new GptConfig(1, 16, 2, 32, 30, 64, 1e-5f, "gelu_new", true);
        GptDecoder decoder = new GptDecoder(Float64Gpt.random(c, 5));
        IllegalArgumentException id = assertThrows(IllegalArgumentException.class,
            () -> decoder.tokenLogProbs(new int[][] {{1, 2}, {3, 30}}, 8));
        assertTrue(id.getMessage().contains("row 1: token id 30 at position 1 is outside [0, 30)"), id.getMessage());
        IllegalArgumentException stride = assertThrows(IllegalArgumentException.class,
            () -> decoder.tokenLogProbs(new int[40], 32));
        assertTrue(stride.getMessage().contains("stride in [1, 31]"), stride.getMessage());
        assertThrows(IllegalArgumentException.class, () -> decoder.logits(new int[33]));
        assertEquals(0, decoder.logits(new int[0]).length);
    }
}
