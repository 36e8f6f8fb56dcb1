package io.sparkattention.exec;

import java.util.Locale;

/**
 * How attention work is laid out on Spark. Every strategy computes the same numbers (within
 * float32 reordering); they differ in what one task holds and how many shuffles the job has.
 *
 * <table>
 *   <caption>Strategies</caption>
 *   <tr><th>strategy</th><th>unit of work</th><th>shuffles</th><th>use when</th></tr>
 *   <tr><td>{@link #BATCH}</td><td>a whole row, all heads</td><td>0</td>
 *       <td>many rows (at least a few per core); streaming</td></tr>
 *   <tr><td>{@link #HEAD}</td><td>(row, head)</td><td>2</td>
 *       <td>few rows with several heads: one row's heads spread over the cluster</td></tr>
 *   <tr><td>{@link #SEQUENCE}</td><td>(row, head, query block, key block)</td><td>3</td>
 *       <td>few very long sequences: one head spread over the cluster</td></tr>
 *   <tr><td>{@link #AUTO}</td><td colspan="3">one of the above, chosen by {@link AutoStrategy}</td></tr>
 * </table>
 */
public enum Strategy {
    /** Chosen from the data and the cluster by {@link AutoStrategy}; the choice is logged. */
    AUTO,
    /** Whole rows, all heads, in one task: no shuffle; the only strategy that runs on streams. */
    BATCH,
    /**
     * One unit per (row, head): the row is projected once, its heads are attended in separate
     * tasks, then reassembled in head order for the output projection.
     */
    HEAD,
    /**
     * One unit per (row, head, query block, key block): partial results are merged exactly with
     * their log-sum-exp in a fixed key-block order. A unit's memory is bounded by the block sizes,
     * not by the sequence length. Attention weights are not available with this strategy.
     */
    SEQUENCE;

    /** Parses a param value ({@code auto}, {@code batch}, {@code head}, {@code sequence}), case-insensitively. */
    public static Strategy parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("strategy must be one of auto, batch, head, sequence; got " + value, e);
        }
    }

    /** The param spelling: {@code auto}, {@code batch}... */
    public String paramValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
