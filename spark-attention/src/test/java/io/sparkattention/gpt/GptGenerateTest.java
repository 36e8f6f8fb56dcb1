package io.sparkattention.gpt;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generation with a KV cache: the gpt_generate_greedy fixture's ids (PyTorch, recomputing the
 * whole sequence at each step), the cache's logits against a full recompute, rows independent of
 * their company, sampling reproducible per (seed, row key), the degenerate settings that are
 * greedy, the end-of-text id, and the refusals.
 */
class GptGenerateTest {

    private static final int NEW = 12;

    @Test
    void greedyIdsEqualPyTorchs() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        int[][] expected = f.generated(NEW);
        for (String kernel : new String[] {null, "blas"}) {
            int[][] ids = new GptDecoder(f.weights, kernel).generate(f.rows, keys(f.rows.length),
                GptGeneration.greedy(NEW));
            for (int r = 0; r < f.rows.length; r++) {
                assertArrayEquals(expected[r], ids[r], kernel + " prompt " + r + " of " + f.rows[r].length + " ids");
            }
        }
    }

    @Test
    void theCachesLogitsAreAFullRecomputesAtEveryStep() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        GptDecoder decoder = new GptDecoder(f.weights);
        int V = f.config.vocabSize();
        int[][] expected = f.generated(NEW);
        float[][][] seen = new float[f.rows.length][NEW][];
        decoder.generate(f.rows, keys(f.rows.length), GptGeneration.greedy(NEW),
            (row, step, logits, off) -> seen[row][step] = Arrays.copyOfRange(logits, off, off + V));
        int[] checked = new int[1];
        for (int row = 0; row < f.rows.length; row++) {
            for (int step = 0; step < NEW; step++) {
                int[] sequence = concat(f.rows[row], Arrays.copyOf(expected[row], step));
                float[] full = decoder.logits(sequence);
                double[] last = new double[V];
                for (int j = 0; j < V; j++) {
                    last[j] = full[(sequence.length - 1) * V + j];
                }
                GptFixture.assertRowClose(last, seen[row][step], 0, 1e-5, "row " + row + " step " + step);
                checked[0]++;
            }
        }
        assertEquals(f.rows.length * NEW, checked[0], "every step of every row compared");
    }

    @Test
    void aRowsIdsDependOnItsPromptAndKeyAloneAndSamplingIsReproducible() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        GptDecoder decoder = new GptDecoder(f.weights);
        GptGeneration sampling = new GptGeneration(NEW, 0.9, 20, 0.9, -1, 42L, false);
        long[] keys = {7, 11, 13, 17};
        int[][] together = decoder.generate(f.rows, keys, sampling);
        int[][] reversed = decoder.generate(new int[][] {f.rows[3], f.rows[2], f.rows[1], f.rows[0]},
            new long[] {17, 13, 11, 7}, sampling);
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(together[r], reversed[3 - r], "row " + r + " in reverse order");
            assertArrayEquals(together[r], decoder.generate(new int[][] {f.rows[r]}, new long[] {keys[r]},
                sampling)[0], "row " + r + " alone");
        }
        assertArrayEquals(together[2], decoder.generate(new int[][] {f.rows[2]}, new long[] {13}, sampling)[0]);
        int[] otherSeed = decoder.generate(new int[][] {f.rows[2]}, new long[] {13},
            new GptGeneration(NEW, 0.9, 20, 0.9, -1, 43L, false))[0];
        int[] otherKey = decoder.generate(new int[][] {f.rows[2]}, new long[] {14}, sampling)[0];
        assertFalse(Arrays.equals(together[2], otherSeed) && Arrays.equals(together[2], otherKey),
            "another seed or row key draws other tokens");
        int[][] blas = new GptDecoder(f.weights, "blas").generate(f.rows, keys, sampling);
        assertEquals(4, blas.length);
    }

    @Test
    void topKOneAndATinyTopPAreGreedy() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        GptDecoder decoder = new GptDecoder(f.weights);
        int[][] greedy = f.generated(NEW);
        long[] keys = keys(f.rows.length);
        assertTrue(Arrays.deepEquals(greedy, decoder.generate(f.rows, keys,
            new GptGeneration(NEW, 1.5, 1, 1.0, -1, 5L, false))), "top-k 1");
        assertTrue(Arrays.deepEquals(greedy, decoder.generate(f.rows, keys,
            new GptGeneration(NEW, 1.5, 0, 1e-9, -1, 5L, false))), "top-p 1e-9");
    }

    @Test
    void aRowStopsAtTheEndOfTextIdKeepingIt() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        int[][] greedy = f.generated(NEW);
        int eos = greedy[3][4];
        int stop = 0;
        while (greedy[3][stop] != eos) {
            stop++;
        }
        int[][] ids = new GptDecoder(f.weights).generate(f.rows, keys(4), new GptGeneration(NEW, 0, 0, 1, eos, 0L,
            false));
        assertArrayEquals(Arrays.copyOf(greedy[3], stop + 1), ids[3]);
        for (int r = 0; r < 3; r++) {
            int end = 0;
            while (end < NEW && greedy[r][end] != eos) {
                end++;
            }
            assertArrayEquals(Arrays.copyOf(greedy[r], Math.min(NEW, end + 1)), ids[r], "row " + r);
        }
    }

    @Test
    void aPromptTooLongIsRefusedNamingTheLengthsOrTruncatedWhenAsked() throws IOException {
        GptFixture f = GptFixture.load("gpt_generate_greedy");
        GptDecoder decoder = new GptDecoder(f.weights);
        int[] prompt = new int[60];
        for (int i = 0; i < prompt.length; i++) {
            prompt[i] = (i * 7) % f.config.vocabSize();
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> decoder.generate(
            new int[][] {f.rows[0], prompt}, keys(2), GptGeneration.greedy(8)));
        assertTrue(e.getMessage().contains("prompt 1 of 60 tokens plus maxNewTokens 8 exceeds the 64 positions"),
            e.getMessage());
        int[] truncated = decoder.generate(new int[][] {prompt}, keys(1), new GptGeneration(8, 0, 0, 1, -1, 0,
            true))[0];
        assertArrayEquals(decoder.generate(new int[][] {Arrays.copyOfRange(prompt, 4, 60)}, keys(1),
            GptGeneration.greedy(8))[0], truncated, "the prompt's last 56 tokens");
        assertThrows(IllegalArgumentException.class, () -> decoder.generate(new int[][] {{}}, keys(1),
            GptGeneration.greedy(1)));
        assertThrows(IllegalArgumentException.class, () -> decoder.generate(new int[][] {{97}}, keys(1),
            GptGeneration.greedy(1)));
        IllegalArgumentException settings = assertThrows(IllegalArgumentException.class,
            () -> new GptGeneration(4, 1.0, 0, 1.5, -1, 0, false));
        assertTrue(settings.getMessage().startsWith("topP"), settings.getMessage());
    }

    static long[] keys(int n) {
        long[] k = new long[n];
        for (int i = 0; i < n; i++) {
            k[i] = i;
        }
        return k;
    }

    static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
