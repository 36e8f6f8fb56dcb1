package io.sparkattention.ml.classification;

import io.sparkattention.nn.Pooling;

import java.util.Arrays;

/**
 * The classifiers' pooling names: one {@link Pooling} per pooling, {@code first} and {@code cls}
 * naming the same one (the attention classifier's and the BERT classifier's spellings, each family
 * reading both). A family writes its own spelling in its files, so that the files read as before.
 */
final class PoolingNames {

    private PoolingNames() {
    }

    /**
     * The pooling {@code value} names, among a family's {@code allowed} spellings.
     *
     * @throws IllegalArgumentException naming the allowed spellings
     */
    static Pooling parse(String value, String[] allowed) {
        if (!Arrays.asList(allowed).contains(value)) {
            throw new IllegalArgumentException("pooling must be one of " + Arrays.toString(allowed) + ", got " + value);
        }
        return Pooling.parse(value);
    }

    /** The BERT classifier's spelling of a pooling: {@code cls} for the first token. */
    static String bertName(Pooling pooling) {
        return pooling == Pooling.FIRST ? "cls" : pooling.paramValue();
    }
}
