package io.sparkattention.examples.demo;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.util.Locale;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;

/**
 * The held-out split of the book classification: within each book, passages are cut into blocks
 * of {@code blockPassages} consecutive passages (block b holds passages [b·n, (b+1)·n)), and
 * every {@code holdoutEvery}-th block (b mod k = k − 1) is held out. Neighbouring passages of a
 * novel share names, scenes and phrasing; holding out whole blocks keeps a held-out passage's
 * near-duplicate neighbours out of training (apart from the two at each block edge). The split
 * depends on the passage numbers alone, so it is the same on every run and every master.
 */
public final class BookSplit {

    /** Passages per block by default: about two pages of a novel. */
    public static final int DEFAULT_BLOCK_PASSAGES = 50;
    /** Every k-th block is held out by default: a fifth of each book. */
    public static final int DEFAULT_HOLDOUT_EVERY = 5;

    private final int blockPassages;
    private final int holdoutEvery;

    /**
     * @param blockPassages consecutive passages per block, at least 1
     * @param holdoutEvery  every this-many-th block is held out, at least 2
     */
    public BookSplit(int blockPassages, int holdoutEvery) {
        if (blockPassages < 1) {
            throw new IllegalArgumentException("blockPassages must be >= 1, got " + blockPassages);
        }
        if (holdoutEvery < 2) {
            throw new IllegalArgumentException("holdoutEvery must be >= 2, got " + holdoutEvery);
        }
        this.blockPassages = blockPassages;
        this.holdoutEvery = holdoutEvery;
    }

    /**
     * Whether a passage is held out.
     *
     * @param passage the passage's number within its book, from 0
     */
    public boolean heldOut(int passage) {
        return (passage / blockPassages) % holdoutEvery == holdoutEvery - 1;
    }

    /** The same rule as {@link #heldOut(int)}, as a boolean column over an integer passage column. */
    public Column heldOut(Column passage) {
        Column block = floor(passage.divide(blockPassages));
        return pmod(block, lit(holdoutEvery)).equalTo(holdoutEvery - 1);
    }

    /** The passages used for training. */
    public Dataset<Row> training(Dataset<Row> passages) {
        return passages.where(heldOut(col("passage")).unary_$bang());
    }

    /** The held-out passages. */
    public Dataset<Row> heldOut(Dataset<Row> passages) {
        return passages.where(heldOut(col("passage")));
    }

    /** One line saying what the split is. */
    public String describe() {
        return String.format(Locale.ROOT, "per book, blocks of %d consecutive passages; every %s block held out",
            blockPassages, ordinal(holdoutEvery));
    }

    private static String ordinal(int k) {
        int mod100 = k % 100;
        String suffix = mod100 >= 11 && mod100 <= 13 ? "th"
            : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
        return k + suffix;
    }
}
