package io.sparkattention.examples.demo;

/**
 * The demo's baseline: a byte bigram model, p(b | a), fitted on the training blocks' byte pairs and
 * smoothed toward the byte unigram (itself add-one): {@code p(b | a) = (c(a, b) + β·u(b)) / (c(a) + β)}
 * with {@code β} = {@value #PRIOR_WEIGHT}. It scores exactly the tokens the language model predicts:
 * every byte of a block after its first, given the byte before it.
 */
public final class ByteBigram {

    /** The unigram prior's weight, in pseudo-counts per context (a held-out check moves it by under 1e-3 bits). */
    static final double PRIOR_WEIGHT = 1.0;

    private static final int BYTES = 256;

    private final long[] pairs = new long[BYTES * BYTES];
    private final long[] contexts = new long[BYTES];
    private final long[] unigram = new long[BYTES];
    private long total;

    /** The model fitted on {@code blocks} (byte ids 0 … 255). */
    public static ByteBigram fit(Iterable<int[]> blocks) {
        ByteBigram model = new ByteBigram();
        for (int[] block : blocks) {
            for (int t = 0; t < block.length; t++) {
                model.unigram[block[t]]++;
                model.total++;
                if (t > 0) {
                    model.pairs[block[t - 1] * BYTES + block[t]]++;
                    model.contexts[block[t - 1]]++;
                }
            }
        }
        return model;
    }

    /** log₂ p(b | a). */
    double log2(int a, int b) {
        double u = (unigram[b] + 1.0) / (total + BYTES);
        return Math.log((pairs[a * BYTES + b] + PRIOR_WEIGHT * u) / (contexts[a] + PRIOR_WEIGHT)) / Math.log(2);
    }

    /** The mean bits per predicted byte over {@code blocks}: −Σ log₂ p(b_t | b_{t−1}) / Σ (L − 1). */
    public double bitsPerByte(Iterable<int[]> blocks) {
        double bits = 0;
        long predicted = 0;
        for (int[] block : blocks) {
            for (int t = 1; t < block.length; t++) {
                bits -= log2(block[t - 1], block[t]);
                predicted++;
            }
        }
        return bits / predicted;
    }
}
