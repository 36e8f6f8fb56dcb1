package io.sparkattention.examples.bench;

import java.nio.file.Path;

/**
 * The train-lm benchmark's step: consecutive blocks of ids — the corpus's UTF-8 bytes from its
 * start for the byte model; for GPT-2's, GPT-2's tokenizer over {@value #PASSAGES} passages evenly
 * spaced through the books, each followed by the end-of-text id as Hugging Face's {@code run_clm}
 * joins texts.
 */
final class TrainLmBlocks {

    /** GPT-2's end-of-text id. */
    static final int END_OF_TEXT = 50256;
    /** Passages tokenized for GPT-2's blocks (passages giving fewer ids than the blocks need are refused). */
    private static final int PASSAGES = 200;

    private TrainLmBlocks() {
    }

    /**
     * {@code shape.blocks()} rows of {@code shape.blockSize()} ids.
     *
     * @throws IllegalArgumentException when the corpus is too small
     */
    static int[][] of(TrainLmBenchmark.Shape shape, Path corpus) {
        int b = shape.blocks(), t = shape.blockSize();
        int[] ids = shape.config().vocabSize() == 256 ? LmMemoryBenchmark.bytes(corpus, b * t) : gpt2(corpus, b * t);
        int[][] blocks = new int[b][t];
        for (int r = 0; r < b; r++) {
            System.arraycopy(ids, r * t, blocks[r], 0, t);
        }
        return blocks;
    }

    private static int[] gpt2(Path corpus, int count) {
        int[] ids = new int[count];
        int at = 0;
        for (int[] passage : EncoderTexts.austen(corpus, PASSAGES, HfTokens::gpt2).ids()) {
            for (int i = 0; i <= passage.length && at < count; i++) {
                ids[at++] = i < passage.length ? passage[i] : END_OF_TEXT;
            }
        }
        if (at < count) {
            throw new IllegalArgumentException(PASSAGES + " passages give " + at + " of GPT-2's ids, fewer than "
                + count);
        }
        return ids;
    }
}
