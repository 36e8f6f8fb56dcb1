package io.sparkattention.examples.cli;

import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.input_file_block_start;
import static org.apache.spark.sql.functions.input_file_name;

/**
 * An input's rows in input order — files in the order of their paths, each file's rows as stored —
 * split into N partitions of consecutive rows, whatever the input's own splits (one {@code .gz}
 * file is one split): task i writes part file i, so the part files in name order hold the rows in
 * input order. Each row also gets the command's row id (its input split above
 * {@link InputTable#LOCAL_BITS}, its place in the split below), which the stages name in their
 * messages and {@link InputTable#records} turns into a file and line. Costs one job that counts
 * the rows of each file block, and one shuffle.
 */
final class RowSplit {

    /** Tasks per core of the cluster when {@code --partitions} is not given: a slow task leaves the other cores work. */
    static final int TASKS_PER_CORE = 2;
    /** The most rows a task holds by default: bounds a task's time (and its work lost to a retry). */
    static final long MAX_ROWS_PER_TASK = 10_000;

    final Dataset<Row> rows;
    /** Rows in the input. */
    final long total;
    /** Partitions of {@link #rows}. */
    final int partitions;

    private RowSplit(Dataset<Row> rows, long total, int partitions) {
        this.rows = rows;
        this.total = total;
        this.partitions = partitions;
    }

    /** Consecutive rows of one file block read by one input split. */
    static final class Block implements Serializable {
        private static final long serialVersionUID = 1L;
        final int split;
        final String file;
        final long start;
        final long rows;
        /** The place of the block's first row in the input's order. */
        long place;

        Block(int split, String file, long start, long rows) {
            this.split = split;
            this.file = file;
            this.start = start;
            this.rows = rows;
        }
    }

    /**
     * Splits {@code read}'s rows.
     *
     * @param read  the input as read from its files
     * @param index the name of the row id column to add
     * @param asked {@code --partitions}, or null for the default
     */
    static RowSplit of(SparkSession spark, Dataset<Row> read, String index, Integer asked) {
        StructType schema = read.schema();
        int width = schema.size();
        StructType indexed = schema.add(index, DataTypes.LongType, false);
        JavaRDD<InternalRow> source = read.select(col("*"), input_file_name(), input_file_block_start())
            .queryExecution().toRdd().toJavaRDD();
        List<Block> blocks = blocks(source, width);
        long total = 0;
        for (Block b : blocks) {
            total += b.rows;
        }
        int n = asked != null ? asked : defaultPartitions(spark.sparkContext().defaultParallelism(), total);
        n = (int) Math.max(1, Math.min(n, total));
        long[][] offsets = offsets(blocks, source.getNumPartitions());
        DataType[] types = new DataType[width];
        for (int i = 0; i < width; i++) {
            types[i] = schema.fields()[i].dataType();
        }
        JavaPairRDD<Long, InternalRow> placed = JavaPairRDD.fromJavaRDD(source.mapPartitionsWithIndex(
            (split, it) -> place(split, it, offsets[split], types, indexed), true));
        JavaRDD<InternalRow> split = placed.repartitionAndSortWithinPartitions(new Consecutive(total, n)).values();
        Dataset<Row> rows = ((org.apache.spark.sql.classic.SparkSession) spark).internalCreateDataFrame(split.rdd(),
            indexed, false);
        return new RowSplit(rows, total, n);
    }

    /** Two tasks per core, more when a task would hold over {@link #MAX_ROWS_PER_TASK} rows. */
    static int defaultPartitions(int cores, long rows) {
        long bySize = (rows + MAX_ROWS_PER_TASK - 1) / MAX_ROWS_PER_TASK;
        return (int) Math.min(InputOptions.MAX_PARTITIONS, Math.max((long) cores * TASKS_PER_CORE, bySize));
    }

    /**
     * The input's file blocks in the order Spark reads them (input split by input split), each with
     * its place in the input's order: one job.
     */
    static List<Block> blocks(Dataset<Row> read) {
        return blocks(read.select(input_file_name(), input_file_block_start()).queryExecution().toRdd().toJavaRDD(), 0);
    }

    /** {@link #blocks(Dataset)} of rows whose fields {@code width} and {@code width + 1} are the file and block start. */
    private static List<Block> blocks(JavaRDD<InternalRow> located, int width) {
        List<Block> blocks = new ArrayList<>(located.mapPartitionsWithIndex((split, it) -> blocks(split, it, width), true)
            .collect());
        long place = 0;
        for (Block b : inOrder(blocks)) {
            b.place = place;
            place += b.rows;
        }
        return blocks;
    }

    /** The blocks in the input's order: files in the order of their paths, a file's blocks by their start. */
    static List<Block> inOrder(List<Block> blocks) {
        List<Block> sorted = new ArrayList<>(blocks);
        sorted.sort(Comparator.<Block, String>comparing(b -> b.file).thenComparingLong(b -> b.start));
        return sorted;
    }

    /** The file blocks one input split reads, in order (the file name and block start are fields width, width + 1). */
    private static Iterator<Block> blocks(int split, Iterator<InternalRow> it, int width) {
        List<Block> found = new ArrayList<>();
        String file = null;
        long start = -1, n = 0;
        while (it.hasNext()) {
            InternalRow r = it.next();
            String f = r.getUTF8String(width).toString();
            long s = r.getLong(width + 1);
            if (n > 0 && (!f.equals(file) || s != start)) {
                found.add(new Block(split, file, start, n));
                n = 0;
            }
            file = f;
            start = s;
            n++;
        }
        if (n > 0) {
            found.add(new Block(split, file, start, n));
        }
        return found.iterator();
    }

    /** Per input split, the place in the input of the first row of each of its blocks. */
    private static long[][] offsets(List<Block> blocks, int splits) {
        List<List<Long>> bySplit = new ArrayList<>();
        for (int i = 0; i < splits; i++) {
            bySplit.add(new ArrayList<>());
        }
        for (Block b : blocks) {
            bySplit.get(b.split).add(b.place);
        }
        long[][] out = new long[splits][];
        for (int i = 0; i < splits; i++) {
            out[i] = bySplit.get(i).stream().mapToLong(Long::longValue).toArray();
        }
        return out;
    }

    /**
     * Each row of one input split keyed by its place in the input, with its row id appended and
     * copied out of the reader's reused buffer (an unsafe row, which both serializers ship).
     */
    private static Iterator<Tuple2<Long, InternalRow>> place(int split, Iterator<InternalRow> it, long[] offsets,
                                                             DataType[] types, StructType indexed) {
        UnsafeProjection unsafe = UnsafeProjection.create(indexed);
        int width = types.length;
        return new Iterator<>() {
            private long id = (long) split << InputTable.LOCAL_BITS;
            private int block = -1;
            private String file;
            private long start = -1;
            private long place;

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Tuple2<Long, InternalRow> next() {
                InternalRow r = it.next();
                String f = r.getUTF8String(width).toString();
                long s = r.getLong(width + 1);
                if (block < 0 || s != start || !f.equals(file)) {
                    block++;
                    file = f;
                    start = s;
                    place = offsets[block];
                }
                Object[] values = new Object[width + 1];
                for (int i = 0; i < width; i++) {
                    values[i] = r.isNullAt(i) ? null : r.get(i, types[i]);
                }
                values[width] = id++;
                return new Tuple2<>(place++, unsafe.apply(new GenericInternalRow(values)).copy());
            }
        };
    }

    /** Row at place p of {@code total} goes to partition ⌊p·n/total⌋: n runs of consecutive rows. */
    private static final class Consecutive extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final long total;
        private final int n;

        Consecutive(long total, int n) {
            this.total = Math.max(1, total);
            this.n = n;
        }

        @Override
        public int numPartitions() {
            return n;
        }

        @Override
        public int getPartition(Object key) {
            // n <= 2^20: place·n stays inside a long up to 2^43 rows.
            return (int) Math.min(n - 1, (Long) key * n / total);
        }
    }
}
