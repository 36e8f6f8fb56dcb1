package io.sparkattention.ml.lm;

import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.ml.training.ConsecutiveKeys;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A language model's sequences ({@link TokenBlock}s) from its rows' ids ({@link TrainingIds}),
 * keyed by their index in the data so that nothing depends on the input's partitioning:
 * <ul>
 *   <li>{@link #packed}: as Hugging Face's {@code run_clm} groups texts — every row's ids in row
 *       order, consecutive rows joined by the end-of-text id (when the tokenizer has one), the
 *       stream cut into blocks of {@code blockSize} ids, the last partial block dropped; block k
 *       holds stream positions [k·B, (k+1)·B). One shuffle assembles the blocks from the rows'
 *       fragments;</li>
 *   <li>{@link #sequences}: each row one sequence, keyed by its row index.</li>
 * </ul>
 * {@link #side} then keeps one side of a held-out split, its keys renumbered 0, 1, …, and
 * {@link #layOut} puts sequences in partitions of consecutive keys cut at equal tokens, cached, as
 * the training engine steps over them: the layout depends on the sequences' lengths and the
 * partitions alone.
 */
final class TokenBlocks {

    private TokenBlocks() {
    }

    /** Sequences keyed 0 … count − 1. */
    record Keyed(JavaRDD<TokenBlock> blocks, long count) {
    }

    /**
     * The packed blocks, key k for block k.
     *
     * @param ids        the rows, with their stream offsets counting one separator per row when {@code separator} ≥ 0
     * @param blockSize  B, ≥ 2
     * @param separator  the end-of-text id between rows, or {@link TokenizerFile#NONE}
     * @return the blocks, in {@code ids}' partition count, ordered by key
     * @throws IllegalArgumentException when the rows hold fewer than B ids in all
     */
    static Keyed packed(TrainingIds ids, int blockSize, int separator) {
        int width = separator >= 0 ? 1 : 0;
        long length = ids.streamLength - width;
        long blocks = length / blockSize;
        if (blocks == 0) {
            throw new IllegalArgumentException("the rows' " + length + " token ids" + (width > 0
                ? " (with the end-of-text ids between rows)" : "") + " make no block of blockSize " + blockSize
                + " ids: packing drops the last partial block");
        }
        long[] starts = ids.streamStarts;
        int partitions = (int) Math.max(1, Math.min(blocks, ids.rowStarts.length));
        return new Keyed(ids.ids()
            .mapPartitionsWithIndex((p, rows) -> fragments(rows, starts[p], blockSize, separator, blocks), true)
            .mapToPair(f -> f)
            .repartitionAndSortWithinPartitions(new ConsecutiveKeys(blocks, partitions))
            .mapPartitions(f -> new Assembled(f, blockSize)), blocks);
    }

    /** Each row one sequence, keyed by its row index. */
    static Keyed sequences(TrainingIds ids) {
        long[] starts = ids.rowStarts;
        return new Keyed(ids.ids().mapPartitionsWithIndex((p, rows) -> {
            List<TokenBlock> out = new ArrayList<>();
            long key = starts[p];
            while (rows.hasNext()) {
                out.add(new TokenBlock(rows.next(), 1.0, key++));
            }
            return out.iterator();
        }, true), ids.rows);
    }

    /** The held-out ({@code heldOut} true) or training side of {@code blocks}, each key renumbered in its side. */
    static Keyed side(Keyed all, HeldOut split, boolean heldOut) {
        long held = split.before(all.count());
        return new Keyed(all.blocks().filter(b -> split.isHeldOut(b.key()) == heldOut)
            .map(b -> new TokenBlock(b.ids(), b.weight(), split.key(b.key()))), heldOut ? held : all.count() - held);
    }

    /**
     * The sequences in {@code partitions} partitions of consecutive keys cut at equal tokens
     * ({@link ConsecutiveKeys#byCost}: a sequence's tokens are what a step spends on it, so the leaf
     * tasks finish together; packed blocks, all B long, are cut at equal counts), sorted, their
     * (key, ids) cached ({@code MEMORY_AND_DISK}) and materialised: records such as
     * {@link TokenBlock} do not pass through Kryo, so the shuffle and the cache hold plain arrays.
     * Each sequence weighs 1.
     */
    static Laid layOut(Keyed sequences, int partitions, String name) {
        JavaPairRDD<Long, int[]> laid = sequences.blocks().mapToPair(b -> new Tuple2<>(b.key(), b.ids()))
            .repartitionAndSortWithinPartitions(ConsecutiveKeys.byCost(lengths(sequences), partitions))
            .persist(StorageLevel.MEMORY_AND_DISK());
        laid.setName(name);
        try {
            laid.count();
        } catch (RuntimeException e) {
            laid.unpersist(false);
            throw e;
        }
        return new Laid(laid, laid.map(t -> new TokenBlock(t._2(), 1.0, t._1())), sequences.count());
    }

    /**
     * Each sequence's length, by key (one job: each partition's sequences, whose keys run
     * consecutively in every {@link Keyed} made here, as its first key and their lengths).
     */
    static int[] lengths(Keyed sequences) {
        List<Tuple2<Long, int[]>> runs = sequences.blocks().mapPartitions(it -> {
            long first = -1;
            int[] lengths = new int[16];
            int n = 0;
            while (it.hasNext()) {
                TokenBlock b = it.next();
                if (n == 0) {
                    first = b.key();
                } else if (b.key() != first + n) {
                    throw new IllegalStateException("sequence key " + b.key() + " follows key " + (first + n - 1)
                        + " in its partition: the keys of a partition must run consecutively");
                }
                if (n == lengths.length) {
                    lengths = Arrays.copyOf(lengths, 2 * n);
                }
                lengths[n++] = b.ids().length;
            }
            return List.of(new Tuple2<>(first, Arrays.copyOf(lengths, n))).iterator();
        }).collect();
        int[] all = new int[Math.toIntExact(sequences.count())];
        for (Tuple2<Long, int[]> run : runs) {
            if (run._2().length > 0) {
                System.arraycopy(run._2(), 0, all, Math.toIntExact(run._1()), run._2().length);
            }
        }
        return all;
    }

    /** Laid-out sequences: the cached pairs, and the sequences read from them in order. */
    record Laid(JavaPairRDD<Long, int[]> cached, JavaRDD<TokenBlock> blocks, long count) implements AutoCloseable {
        @Override
        public void close() {
            cached.unpersist(false);
        }
    }

    /**
     * The fragments of a partition's rows, whose stream starts at {@code start}, none at or past block
     * {@code blocks}: a row's share of block k as (k, {offset in the block, its ids…}), plain arrays
     * that any serializer ships.
     */
    private static Iterator<Tuple2<Long, int[]>> fragments(Iterator<int[]> rows, long start, int blockSize,
                                                           int separator, long blocks) {
        List<Tuple2<Long, int[]>> out = new ArrayList<>();
        long at = start;
        long end = blocks * blockSize;
        while (rows.hasNext() && at < end) {
            int[] ids = rows.next();
            int[] row = separator >= 0 ? Arrays.copyOf(ids, ids.length + 1) : ids;
            if (separator >= 0) {
                row[ids.length] = separator;
            }
            int from = 0;
            while (from < row.length && at < end) {
                int offset = (int) (at % blockSize);
                int n = Math.min(row.length - from, blockSize - offset);
                int[] fragment = new int[n + 1];
                fragment[0] = offset;
                System.arraycopy(row, from, fragment, 1, n);
                out.add(new Tuple2<>(at / blockSize, fragment));
                from += n;
                at += n;
            }
        }
        return out.iterator();
    }

    /** Sorted fragments into blocks: consecutive fragments of one block placed at their offsets. */
    private static final class Assembled implements Iterator<TokenBlock> {
        private final Iterator<Tuple2<Long, int[]>> fragments;
        private final int blockSize;
        private Tuple2<Long, int[]> pending;

        Assembled(Iterator<Tuple2<Long, int[]>> fragments, int blockSize) {
            this.fragments = fragments;
            this.blockSize = blockSize;
        }

        @Override
        public boolean hasNext() {
            return pending != null || fragments.hasNext();
        }

        @Override
        public TokenBlock next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Tuple2<Long, int[]> first = pending != null ? pending : fragments.next();
            pending = null;
            long block = first._1();
            int[] ids = new int[blockSize];
            int filled = place(first._2(), ids);
            while (fragments.hasNext()) {
                Tuple2<Long, int[]> f = fragments.next();
                if (f._1() != block) {
                    pending = f;
                    break;
                }
                filled += place(f._2(), ids);
            }
            if (filled != blockSize) {
                throw new IllegalStateException("block " + block + " assembled " + filled + " of " + blockSize + " ids");
            }
            return new TokenBlock(ids, 1.0, block);
        }

        /** Copies a fragment {offset, ids…} into its block; returns the ids placed. */
        private static int place(int[] fragment, int[] ids) {
            System.arraycopy(fragment, 1, ids, fragment[0], fragment.length - 1);
            return fragment.length - 1;
        }
    }
}
