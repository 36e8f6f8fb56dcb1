package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptConfig;

/**
 * Work of a GPT-2 as the language-model benchmarks count it ({@code bench --lm}): the useful
 * products only, the same for every contender (padding, and logits nobody reads, are not work).
 * Per position t of a row (0-based, keys 0 … t visible), per layer: the fused QKV projection
 * 2·E·3E, the output projection 2·E·E, the two feed-forward products 2·E·F each, and the causal
 * attention 4·(t + 1)·E; per position whose next id is scored or chosen, the head 2·E·V.
 * LayerNorms, GELU, softmax and embeddings are not counted. GPT-2 small: about 170 MFLOP of
 * blocks and 77 MFLOP of head per token.
 */
final class LmWork {

    private LmWork() {
    }

    /** The blocks' work over positions {@code [from, to)} of a row whose earlier keys are cached. */
    static double blocks(GptConfig c, int from, int to) {
        double e = c.hidden(), f = c.inner(), sum = 0;
        for (int t = from; t < to; t++) {
            sum += 2 * e * 3 * e + 2 * e * e + 4 * e * f + 4 * (t + 1.0) * e;
        }
        return c.layers() * sum;
    }

    /** The head's work over {@code positions} positions. */
    static double head(GptConfig c, int positions) {
        return 2.0 * c.hidden() * c.vocabSize() * positions;
    }

    /** Scoring rows of these lengths: every position through the blocks, all but the last through the head. */
    static double scoring(GptConfig c, int[][] rows) {
        double sum = 0;
        for (int[] row : rows) {
            sum += blocks(c, 0, row.length) + head(c, Math.max(0, row.length - 1));
        }
        return sum;
    }

    /**
     * Greedy generation of {@code newTokens} ids after each of {@code prompts} prompts of
     * {@code promptLength} ids: the prompt's positions, then one position per new id but the last;
     * the head once per new id.
     */
    static double generation(GptConfig c, int prompts, int promptLength, int newTokens) {
        return prompts * (blocks(c, 0, promptLength + newTokens - 1) + head(c, newTokens));
    }

    /** The head's share of the counted work of scoring these rows. */
    static double headShare(GptConfig c, int[][] rows) {
        double head = 0;
        for (int[] row : rows) {
            head += head(c, Math.max(0, row.length - 1));
        }
        return head / scoring(c, rows);
    }
}
