package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptGeneration;
import io.sparkattention.gpt.GptWeights;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parts of {@code bench --lm} on a small real GPT: the seeded weights, the work it counts, the
 * scoring and generation trials against the decoder called directly, the greedy-agreement check,
 * the prompts and the long row's bytes.
 */
class LmBenchPartsTest {

    private static final GptConfig SMALL = new GptConfig(2, 32, 4, 96, 256, 128, 1e-5f, GptConfig.GELU_NEW, true);

    @TempDir
    Path dir;

    @Test
    void weightsAreHuggingFacesInitialisationAndRepeatable() {
        GptWeights a = RandomGpt.weights(SMALL), b = RandomGpt.weights(SMALL);
        for (String name : GptWeights.shapes(SMALL).keySet()) {
            assertArrayEquals(a.tensor(name), b.tensor(name), name);
        }
        assertStd(a.tensor("wte.weight"), 0.02);
        assertStd(a.tensor("h.1.attn.c_attn.weight"), 0.02);
        assertStd(a.tensor("h.0.mlp.c_proj.weight"), 0.02 / Math.sqrt(2 * SMALL.layers()));
        for (float x : a.tensor("h.0.ln_2.weight")) {
            assertEquals(1f, x);
        }
        for (String bias : new String[] {"h.0.attn.c_attn.bias", "h.1.mlp.c_fc.bias", "ln_f.bias"}) {
            for (float x : a.tensor(bias)) {
                assertEquals(0f, x, bias);
            }
        }
    }

    @Test
    void workCountsTheProductsAndTheHead() {
        GptConfig small = RandomGpt.gpt2Small();
        double perLayer = 2.0 * 768 * 2304 + 2.0 * 768 * 768 + 2 * 2.0 * 768 * 3072;
        // position 9 attends over 10 keys: 4·10·E
        assertEquals(12 * (perLayer + 4 * 10 * 768), LmWork.blocks(small, 9, 10), 1);
        assertEquals(2.0 * 768 * 50257 * 5, LmWork.head(small, 5), 1);
        int[][] rows = {new int[100]};
        double share = LmWork.headShare(small, rows);
        assertEquals(LmWork.head(small, 99) / (LmWork.blocks(small, 0, 100) + LmWork.head(small, 99)), share, 1e-12);
        assertTrue(share > 0.29 && share < 0.32, "GPT-2 small's head is about 30% of a token's work: " + share);
        // 4 prompts of 8 ids, 3 new ids: positions 0..9 run, the head 3 times, per prompt
        assertEquals(4 * (LmWork.blocks(small, 0, 10) + LmWork.head(small, 3)), LmWork.generation(small, 4, 8, 3), 1);
    }

    @Test
    void trialsComputeWhatTheDecoderComputes() {
        GptDecoder decoder = new GptDecoder(RandomGpt.weights(SMALL));
        SplittableRandom random = new SplittableRandom(3);
        int[][] ids = new int[9][];
        for (int r = 0; r < ids.length; r++) {
            ids[r] = random.ints(1 + 7 * r, 0, 256).toArray();
        }
        EncoderTexts texts = EncoderTexts.of("random", ids);
        try (LmScoreTrial trial = new LmScoreTrial(decoder, texts, 2)) {
            for (int r = 0; r < ids.length; r++) {
                assertArrayEquals(decoder.tokenLogProbs(ids[r], SMALL.positions() - 1), trial.logProbs()[r],
                    "text " + r);
            }
            BenchResult line = trial.result(new double[] {2, 1, 3}, new double[] {2, 1, 3});
            assertTrue(line.toJson().contains("\"mode\":\"lm_score\""), line.toJson());
            assertEquals(2, line.medianMs());
        }
        int[][] prompts = new int[4][];
        for (int r = 0; r < prompts.length; r++) {
            prompts[r] = random.ints(12, 0, 256).toArray();
        }
        try (LmGenerateTrial trial = new LmGenerateTrial(decoder, prompts, 2, 5, 2)) {
            for (int r = 0; r < prompts.length; r++) {
                int[] alone = decoder.generate(new int[][] {prompts[r]}, new long[] {r}, GptGeneration.greedy(5))[0];
                assertArrayEquals(alone, trial.generated()[r], "prompt " + r);
            }
            assertTrue(trial.result(new double[] {10}, new double[] {10}).toJson()
                .contains("\"new_tokens_per_s\":2000.0"), "4 prompts x 5 ids in 10 ms");
        }
    }

    @Test
    void greedyIdsAgreeOnlyUpToATie() {
        GptDecoder decoder = new GptDecoder(RandomGpt.weights(SMALL));
        int[][] prompts = {{1, 2, 3, 4}, {9, 8, 7}};
        int[][] ours = decoder.generate(prompts, new long[] {0, 1}, GptGeneration.greedy(4));
        int[][] same = {ours[0].clone(), ours[1].clone()};
        assertNull(GreedyAgreement.check(decoder, prompts, ours, same, 1e-4));
        int[][] other = {ours[0].clone(), ours[1].clone()};
        other[1][2] = (ours[1][2] + 1) % 256;
        float[] logits = decoder.logits(new int[] {9, 8, 7, ours[1][0], ours[1][1]});
        int last = 4 * 256;
        double gap = Math.abs(logits[last + ours[1][2]] - logits[last + other[1][2]]);
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> GreedyAgreement.check(decoder, prompts, ours, other, gap / 2));
        assertTrue(e.getMessage().contains("prompt 1 step 2"), e.getMessage());
        String tie = GreedyAgreement.check(decoder, prompts, ours, other, gap * 2);
        assertTrue(tie.startsWith("prompt 1 step 2 (ids " + ours[1][2] + " and " + other[1][2]), tie);
    }

    @Test
    void promptsAndTheLongRowComeFromTheBooks() throws Exception {
        Path books = Files.createDirectories(dir.resolve("books"));
        String passage = "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
            + "must be in want of a wife, and that every family in the neighbourhood will soon think of him as the "
            + "rightful property of one or other of their daughters.";
        Files.writeString(books.resolve("a.txt"), passage + "\n\nOne two three four five six seven eight nine ten "
            + "eleven twelve.\n\n" + passage + "\n", StandardCharsets.UTF_8);
        int[][] prompts = LmPrompts.austen(books, 2, 16);
        int[] whole = HfTokens.gpt2(java.util.List.of(passage))[0];
        for (int[] prompt : prompts) {
            assertArrayEquals(java.util.Arrays.copyOf(whole, 16), prompt);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LmPrompts.austen(books, 3, 16));
        assertTrue(e.getMessage().contains("has 2 passages of 16 GPT-2 ids or more, fewer than 3"), e.getMessage());
        int[] bytes = LmMemoryBenchmark.bytes(books, 10);
        assertArrayEquals(new int[] {'I', 't', ' ', 'i', 's', ' ', 'a', ' ', 't', 'r'}, bytes);
        assertThrows(IllegalArgumentException.class, () -> LmMemoryBenchmark.bytes(books, 100_000));
    }

    private static void assertStd(float[] x, double expected) {
        double sum = 0, squares = 0;
        for (float v : x) {
            sum += v;
            squares += (double) v * v;
        }
        double mean = sum / x.length, std = Math.sqrt(squares / x.length - mean * mean);
        assertEquals(expected, std, expected * 0.1, "standard deviation");
    }
}
