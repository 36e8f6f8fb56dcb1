package io.sparkattention.ml.feature;

import io.sparkattention.bert.BertEncoder;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * How the encoder stage runs a task's rows: consecutive rows are gathered into batches of at most
 * {@code batchRows} rows and {@code batchTokens} tokens (a row longer than that is a batch of its
 * own), a batch is sorted by length and encoded by one stacked forward
 * ({@link BertEncoder#forward(int[][])}: each projection reads its weights once for the whole
 * batch), and the states come back in the rows' order. Nothing is padded, so each text gets the
 * bits it gets alone. {@code bench --encoder}'s {@code encoder} mode runs the same batches.
 *
 * <p>Spark-free, immutable and thread-safe.
 */
public final class EncoderBatches implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Default most rows per batch: with the token bound, it keeps a batch of short texts from
     * holding more input rows and outputs than its forward needs to reach full speed.
     */
    public static final int DEFAULT_BATCH_ROWS = 64;

    /**
     * Default most tokens per batch. The stacked forward's scratch grows with it (for MiniLM,
     * 384 + 3·384 + 1,536 floats and more per token: 2,048 tokens take about 30 MB per task thread).
     */
    public static final int DEFAULT_BATCH_TOKENS = 2048;

    private final int batchRows;
    private final int batchTokens;

    /**
     * @param batchRows   most rows per batch, at least 1
     * @param batchTokens most tokens per batch, at least 1 (a longer row is a batch of its own)
     * @throws IllegalArgumentException naming the bound below 1
     */
    public EncoderBatches(int batchRows, int batchTokens) {
        if (batchRows < 1) {
            throw new IllegalArgumentException("batchRows must be at least 1, got " + batchRows);
        }
        if (batchTokens < 1) {
            throw new IllegalArgumentException("batchTokens must be at least 1, got " + batchTokens);
        }
        this.batchRows = batchRows;
        this.batchTokens = batchTokens;
    }

    /** The stage's default batches. */
    public static EncoderBatches defaults() {
        return new EncoderBatches(DEFAULT_BATCH_ROWS, DEFAULT_BATCH_TOKENS);
    }

    public int batchRows() {
        return batchRows;
    }

    public int batchTokens() {
        return batchTokens;
    }

    /**
     * Whether a batch of {@code rows} rows and {@code tokens} tokens is closed before a row of
     * {@code nextLength} tokens: it has its rows, or the row would take it past its tokens.
     */
    public boolean closesBefore(int rows, long tokens, int nextLength) {
        return rows >= batchRows || (rows > 0 && tokens + nextLength > batchTokens);
    }

    /**
     * The batches of texts of these lengths, in order: each an array of consecutive indices.
     *
     * @param lengths the texts' lengths in tokens
     */
    public List<int[]> split(int[] lengths) {
        Objects.requireNonNull(lengths, "lengths");
        List<int[]> batches = new ArrayList<>();
        int first = 0;
        long tokens = 0;
        for (int i = 0; i < lengths.length; i++) {
            if (closesBefore(i - first, tokens, lengths[i])) {
                batches.add(IntStream.range(first, i).toArray());
                first = i;
                tokens = 0;
            }
            tokens += lengths[i];
        }
        if (first < lengths.length) {
            batches.add(IntStream.range(first, lengths.length).toArray());
        }
        return batches;
    }

    /**
     * One batch's last hidden states: the sequences sorted by length (ties in their order), one
     * stacked forward, the states returned in the batch's order.
     *
     * @param encoder the encoder
     * @param batch   token id sequences, checked by the caller ({@link BertEncoder#forward(int[][])}
     *                checks them again and names the sequence)
     * @return one L×hidden array per sequence, in the batch's order
     */
    public static float[][] encode(BertEncoder encoder, int[][] batch) {
        return encode(batch, encoder::forward);
    }

    /**
     * {@link #encode(BertEncoder, int[][])} through any stacked forward (a fine-tuned network's
     * frozen prefix, for one): the batch sorted by length, one call, the results in the batch's order.
     *
     * @param batch   token id sequences
     * @param stacked the stacked forward: one result per sequence, in its argument's order
     * @return one result per sequence, in the batch's order
     */
    public static float[][] encode(int[][] batch, Function<int[][], float[][]> stacked) {
        Integer[] order = IntStream.range(0, batch.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingInt(i -> batch[i].length));
        int[][] sorted = new int[batch.length][];
        for (int i = 0; i < order.length; i++) {
            sorted[i] = batch[order[i]];
        }
        float[][] states = stacked.apply(sorted);
        float[][] out = new float[batch.length][];
        for (int i = 0; i < order.length; i++) {
            out[order[i]] = states[i];
        }
        return out;
    }
}
