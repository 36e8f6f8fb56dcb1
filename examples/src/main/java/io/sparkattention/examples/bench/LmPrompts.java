package io.sparkattention.examples.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The generation benchmark's prompts ({@code bench --lm}, mode {@code lm_generate}): the first L
 * GPT-2 ids of Austen passages that have at least L, N of them evenly spaced through the books.
 */
final class LmPrompts {

    private LmPrompts() {
    }

    /**
     * @throws IllegalArgumentException when the corpus has fewer than {@code count} passages of
     *                                  {@code length} ids or more
     */
    static int[][] austen(Path corpus, int count, int length) {
        List<String> all = EncoderTexts.passages(corpus);
        List<int[]> longEnough = new ArrayList<>();
        for (int[] ids : HfTokens.gpt2(all)) {
            if (ids.length >= length) {
                longEnough.add(ids);
            }
        }
        if (longEnough.size() < count) {
            throw new IllegalArgumentException("corpus " + corpus + " has " + longEnough.size() + " passages of " + length
                + " GPT-2 ids or more, fewer than " + count);
        }
        int[][] prompts = new int[count][];
        for (int i = 0; i < count; i++) {
            prompts[i] = java.util.Arrays.copyOf(longEnough.get((int) ((long) i * longEnough.size() / count)), length);
        }
        return prompts;
    }
}
