package io.sparkattention.ml.lm;

import io.sparkattention.rows.RowDataException;
import io.sparkattention.rows.TokenIds;
import io.sparkattention.sparkinternal.InternalFrames;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;

import java.io.Serializable;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * A language model's training or validation rows as token ids, in the input's row order (its
 * partitions in order, each partition's rows in order): decoded once, cached, and checked before
 * anything is sized by them — every id in [0, vocabulary) and, when each row is one sequence, 1 to
 * {@code maxLength} ids — failing on the first bad row with its position in the input (from 1)
 * and the column. One job decodes and profiles the rows; it also gives each partition's first row
 * index and first offset in the packed stream, which number every row and token without another.
 */
final class TrainingIds implements AutoCloseable {

    /** A decoded row: its ids, or what is wrong with it (a class, not a record: Kryo ships it when cached to disk). */
    private static final class Read implements Serializable {
        private static final long serialVersionUID = 1L;

        private final int[] ids;
        private final String problem;

        Read(int[] ids, String problem) {
            this.ids = ids;
            this.problem = problem;
        }

        int[] ids() {
            return ids;
        }

        String problem() {
            return problem;
        }
    }

    private final JavaRDD<Read> decoded;
    /** Each partition's first row's index in the input, from 0. */
    final long[] rowStarts;
    /** Each partition's first token's offset in the packed stream: every row's ids, each followed by its separator. */
    final long[] streamStarts;
    /** The rows. */
    final long rows;
    /** The packed stream's length: Σ (ids + separator) over every row. */
    final long streamLength;

    private TrainingIds(JavaRDD<Read> decoded, long[] rowStarts, long[] streamStarts, long rows, long streamLength) {
        this.decoded = decoded;
        this.rowStarts = rowStarts;
        this.streamStarts = streamStarts;
        this.rows = rows;
        this.streamLength = streamLength;
    }

    /**
     * Reads and checks a column of token ids.
     *
     * @param dataset     the rows, in the order that numbers them
     * @param column      an {@code array<int>} or {@code array<bigint>} column
     * @param shownAs     how errors name the column (a text column's name, when the ids are its tokens)
     * @param rowName     how errors name a row ("row", "validation row")
     * @param vocabSize   every id must be in [0, vocabSize)
     * @param maxLength   the most ids a row may have, {@code Integer.MAX_VALUE} for none
     * @param limit       what {@code maxLength} is, for the error ("more than the model's 64 positions ...")
     * @param separator   the ids each row adds to the packed stream besides its own (0 or 1)
     * @throws IllegalArgumentException naming the row (from 1) and the column of the first bad row, or
     *                                  when there are no rows
     */
    static TrainingIds read(Dataset<?> dataset, String column, String shownAs, String rowName, int vocabSize,
                            int maxLength, String limit, int separator) {
        boolean longIds = ((ArrayType) dataset.schema().apply(column).dataType()).elementType()
            .equals(DataTypes.LongType);
        TokenIds ids = new TokenIds(shownAs, longIds, true, vocabSize);
        boolean sequences = maxLength < Integer.MAX_VALUE;
        JavaRDD<InternalRow> rows = InternalFrames.rows(dataset.select(column)).toJavaRDD();
        JavaRDD<Read> decoded = rows.map(row -> decode(ids, row, sequences, maxLength, limit, shownAs))
            .persist(StorageLevel.MEMORY_AND_DISK());
        decoded.setName("language model " + rowName + "s: token ids");
        try {
            List<Profile> parts = decoded.mapPartitions(it -> Collections.singletonList(Profile.of(it, separator))
                .iterator()).collect();
            long[] rowStarts = new long[parts.size()];
            long[] streamStarts = new long[parts.size()];
            long count = 0;
            long stream = 0;
            for (int p = 0; p < parts.size(); p++) {
                Profile part = parts.get(p);
                if (part.problem != null) {
                    throw new IllegalArgumentException(rowName + " " + (count + part.problemRow + 1) + ": "
                        + part.problem);
                }
                rowStarts[p] = count;
                streamStarts[p] = stream;
                count += part.rows;
                stream += part.stream;
            }
            if (count == 0) {
                throw new IllegalArgumentException("no " + rowName + "s: a language model needs at least one");
            }
            return new TrainingIds(decoded, rowStarts, streamStarts, count, stream);
        } catch (RuntimeException e) {
            decoded.unpersist(false);
            throw e;
        }
    }

    private static Read decode(TokenIds ids, InternalRow row, boolean sequences, int maxLength, String limit,
                               String column) {
        if (row.isNullAt(0)) {
            return new Read(null, "column " + column + " is null");
        }
        try {
            int[] read = ids.read(row.getArray(0), 0, maxLength, limit);
            if (sequences && read.length == 0) {
                return new Read(null, "column " + column + " has no token ids; a sequence needs at least one");
            }
            return new Read(read, null);
        } catch (RowDataException e) {
            return new Read(null, e.getMessage());
        }
    }

    /** The rows' ids, in order (cached). */
    JavaRDD<int[]> ids() {
        return decoded.map(Read::ids);
    }

    @Override
    public void close() {
        decoded.unpersist(false);
    }

    /** One partition's rows, its share of the packed stream and its first problem (it stops there). */
    private static final class Profile implements Serializable {
        private static final long serialVersionUID = 1L;

        long rows;
        long stream;
        String problem;
        long problemRow;

        static Profile of(Iterator<Read> it, int separator) {
            Profile p = new Profile();
            while (it.hasNext() && p.problem == null) {
                Read r = it.next();
                if (r.problem() != null) {
                    p.problem = r.problem();
                    p.problemRow = p.rows;
                } else {
                    p.stream += r.ids().length + separator;
                }
                p.rows++;
            }
            return p;
        }
    }
}
