package io.sparkattention.examples.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * How a batching runtime's users feed it texts of different lengths: in batches padded to the
 * batch's longest text, either sorted by length first (sentence-transformers' {@code encode} sorts
 * by length in batches of 32) or in input order (Spark NLP's annotators take a partition's rows in
 * order, 8 at a time by default).
 */
public enum EncoderBatching {
    /** Sorted by length, batches of 32. */
    SORTED32("sorted32", 32, true),
    /** Input order, batches of 8. */
    INORDER8("inorder8", 8, false);

    private final String label;
    private final int batchSize;
    private final boolean sorted;

    EncoderBatching(String label, int batchSize, boolean sorted) {
        this.label = label;
        this.batchSize = batchSize;
        this.sorted = sorted;
    }

    /** The name on the JSON line ({@code batching}). */
    public String label() {
        return label;
    }

    public int batchSize() {
        return batchSize;
    }

    /** The texts' indices per batch, for texts of {@code lengths[i]} tokens. */
    List<int[]> batches(int[] lengths) {
        Integer[] order = IntStream.range(0, lengths.length).boxed().toArray(Integer[]::new);
        if (sorted) {
            Arrays.sort(order, Comparator.comparingInt(i -> lengths[i]));  // stable: ties keep input order
        }
        List<int[]> out = new ArrayList<>();
        for (int first = 0; first < order.length; first += batchSize) {
            int end = Math.min(order.length, first + batchSize);
            out.add(Arrays.stream(order, first, end).mapToInt(Integer::intValue).toArray());
        }
        return out;
    }

    /** The share of the padded batches' positions that are padding: 1 − tokens / Σ batch·longest. */
    static double paddingShare(List<int[]> batches, int[] lengths) {
        long real = 0, padded = 0;
        for (int[] batch : batches) {
            int longest = 0;
            for (int i : batch) {
                real += lengths[i];
                longest = Math.max(longest, lengths[i]);
            }
            padded += (long) longest * batch.length;
        }
        return padded == 0 ? 0 : 1 - (double) real / padded;
    }
}
