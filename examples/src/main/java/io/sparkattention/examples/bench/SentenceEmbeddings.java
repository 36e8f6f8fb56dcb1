package io.sparkattention.examples.bench;

import io.sparkattention.nn.Pooling;

import java.util.Arrays;

/**
 * What every contender of the encoder benchmark makes of a text, as its users would: the sentence
 * embedding, the mean of the last hidden states over the text's tokens ([CLS] and [SEP] included),
 * L2-normalised. Kept per text so two contenders' outputs can be compared, and summed into a
 * checksum in text order.
 */
final class SentenceEmbeddings {

    private final float[][] embeddings;

    SentenceEmbeddings(int texts) {
        this.embeddings = new float[texts][];
    }

    /**
     * Pools text {@code text}'s states ({@link Pooling}, mean, normalised): {@code length}
     * rows of {@code hidden} values starting at {@code offset} of {@code states}. Threads may pool
     * different texts at once.
     */
    void pool(int text, float[] states, int offset, int length, int hidden) {
        float[] own = offset == 0 && states.length == length * hidden ? states
            : Arrays.copyOfRange(states, offset, offset + length * hidden);
        embeddings[text] = Pooling.MEAN.embed(own, length, hidden, true);
    }

    /** The sum of every embedding's components, texts in order (NaN while a text has none). */
    double checksum() {
        double s = 0;
        for (float[] e : embeddings) {
            if (e == null) {
                return Double.NaN;
            }
            for (float v : e) {
                s += v;
            }
        }
        return s;
    }

    /** The largest absolute difference of a component between these embeddings and {@code other}'s. */
    double maxAbsDiff(SentenceEmbeddings other) {
        double max = 0;
        for (int i = 0; i < embeddings.length; i++) {
            for (int j = 0; j < embeddings[i].length; j++) {
                max = Math.max(max, Math.abs(embeddings[i][j] - other.embeddings[i][j]));
            }
        }
        return max;
    }
}
