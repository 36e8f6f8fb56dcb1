package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertClassifierRow;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.ml.feature.EncoderBatches;
import io.sparkattention.rows.RowDataException;
import io.sparkattention.rows.TokenIds;
import io.sparkattention.sparkinternal.InternalFrames;
import io.sparkattention.ml.training.ConsecutiveKeys;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

/**
 * A {@link BertClassifier} fit's training rows, in two phases.
 *
 * <p>{@link #decode}: the token ids, labels and weights decoded once and cached, and validated
 * before anything is sized by them — every row usable (ids within the encoder's vocabulary,
 * 1 ≤ length ≤ its positions, a label in [0, K), a finite weight ≥ 0), a non-empty set with a
 * positive total weight — failing with the row's position in the input (from 1) and the column.
 *
 * <p>{@link #layOut}: the rows go, by their position in the input, into {@code partitions}
 * partitions of consecutive rows cut at equal tokens (one shuffle), each row keyed by its position and carrying its
 * frozen prefix's states, computed here once; cached ({@code MEMORY_AND_DISK}) for every step.
 * So a step's sums depend on the rows, their order and the partition count, never on how the input was
 * partitioned. {@link #close} unpersists what is cached.
 */
final class BertTrainingData implements AutoCloseable {

    private final JavaRDD<BertTrainingRow> decoded;
    private JavaRDD<BertClassifierRow> rows;
    final long count;
    final double weight;
    final int maxLabel;

    /** Rows per input partition. */
    private final long[] counts;
    /** Each row's tokens, in input order: its cost in a step, by which {@link #layOut} balances the partitions. */
    private final int[] tokens;

    private BertTrainingData(JavaRDD<BertTrainingRow> decoded, long[] counts, int[] tokens, long count, double weight,
                             int maxLabel) {
        this.decoded = decoded;
        this.counts = counts;
        this.tokens = tokens;
        this.count = count;
        this.weight = weight;
        this.maxLabel = maxLabel;
    }

    /**
     * Decodes and validates the training columns.
     *
     * @param dataset  the training set, its label column already cast to double
     * @param idsCol   the token ids column, {@code array<int>} or {@code array<bigint>}
     * @param config   the encoder the ids must fit
     * @throws IllegalArgumentException naming the row (its position in the input, from 1) and the
     *     column of the first unusable row, or when the set is empty or its weights sum to 0
     */
    static BertTrainingData decode(Dataset<?> dataset, String idsCol, String labelCol, String weightCol,
                                   ClassCount classes, BertConfig config) {
        boolean longIds = ((ArrayType) dataset.schema().apply(idsCol).dataType()).elementType()
            .equals(DataTypes.LongType);
        Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast(DataTypes.DoubleType);
        Dataset<Row> selected = dataset.select(col(idsCol), col(labelCol).cast(DataTypes.DoubleType), weight);
        JavaRDD<InternalRow> internal = InternalFrames.rows(selected).toJavaRDD();
        Decoder decoder = new Decoder(idsCol, labelCol, weightCol, longIds, classes, config.vocabSize(),
            config.maxPositions());
        JavaRDD<BertTrainingRow> decoded = internal.map(decoder::decode).persist(StorageLevel.MEMORY_AND_DISK());
        decoded.setName("BertClassifier input rows");
        try {
            List<Profile> parts = decoded.mapPartitions(it -> Collections.singletonList(Profile.of(it)).iterator())
                .collect();
            long rows = 0;
            double total = 0;
            int maxLabel = -1;
            long[] counts = new long[parts.size()];
            for (int p = 0; p < parts.size(); p++) {
                Profile part = parts.get(p);
                if (part.problem != null) {
                    throw new IllegalArgumentException("row " + (rows + part.problemRow + 1) + ": " + part.problem);
                }
                counts[p] = part.rows;
                rows += part.rows;
                total += part.weight;
                maxLabel = Math.max(maxLabel, part.maxLabel);
            }
            if (rows == 0) {
                throw new IllegalArgumentException("the training set is empty: BertClassifier needs at least one row");
            }
            if (!(total > 0)) {
                throw new IllegalArgumentException("the weights in column " + weightCol + " sum to " + total
                    + "; at least one row needs a positive weight");
            }
            int[] tokens = new int[Math.toIntExact(rows)];
            for (int p = 0, at = 0; p < parts.size(); at += parts.get(p++).tokens.length) {
                System.arraycopy(parts.get(p).tokens, 0, tokens, at, parts.get(p).tokens.length);
            }
            return new BertTrainingData(decoded, counts, tokens, rows, total, maxLabel);
        } catch (RuntimeException e) {
            decoded.unpersist(false);
            throw e;
        }
    }

    /**
     * Lays the rows out in {@code partitions} partitions of consecutive input positions, cut at
     * equal tokens ({@link ConsecutiveKeys#byCost}: a row's tokens are what a step spends on it, so
     * the leaf tasks finish together), with their frozen states, cached and materialised.
     *
     * @param network the network (its frozen prefix), as shipped to the executors
     */
    JavaRDD<BertClassifierRow> layOut(Broadcast<Shipped<BertClassifierNetwork>> network, int partitions) {
        long[] offsets = new long[counts.length];
        for (int p = 1; p < counts.length; p++) {
            offsets[p] = offsets[p - 1] + counts[p - 1];
        }
        JavaRDD<BertClassifierRow> laid = decoded
            .mapPartitionsWithIndex((p, it) -> keyed(offsets[p], it), true)
            .mapToPair(t -> t)
            .repartitionAndSortWithinPartitions(ConsecutiveKeys.byCost(tokens, partitions))
            .mapPartitions(it -> new WithFrozenStates(network.value().get(), EncoderBatches.defaults(), it), true)
            .persist(StorageLevel.MEMORY_AND_DISK());
        laid.setName("BertClassifier training rows (" + partitions + " partitions, frozen states)");
        try {
            laid.count();
        } catch (RuntimeException e) {
            laid.unpersist(false);
            throw e;
        }
        decoded.unpersist(false);
        rows = laid;
        return laid;
    }

    private static Iterator<Tuple2<Long, BertTrainingRow>> keyed(long first, Iterator<BertTrainingRow> it) {
        return new Iterator<>() {
            long next = first;

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Tuple2<Long, BertTrainingRow> next() {
                return new Tuple2<>(next++, it.next());
            }
        };
    }

    @Override
    public void close() {
        decoded.unpersist(false);
        if (rows != null) {
            rows.unpersist(false);
        }
    }

    /**
     * A partition's keyed rows laid out with their frozen states, in order: consecutive rows are
     * gathered into the groups of {@code batches} and each group's states come from one stacked
     * forward of the frozen prefix (none when everything trains).
     */
    private static final class WithFrozenStates implements Iterator<BertClassifierRow> {
        private final BertClassifierNetwork network;
        private final EncoderBatches batches;
        private final Iterator<Tuple2<Long, BertTrainingRow>> input;
        private final List<Tuple2<Long, BertTrainingRow>> group = new ArrayList<>();
        private Tuple2<Long, BertTrainingRow> pending;
        private BertClassifierRow[] ready = new BertClassifierRow[0];
        private int next;

        WithFrozenStates(BertClassifierNetwork network, EncoderBatches batches,
                         Iterator<Tuple2<Long, BertTrainingRow>> input) {
            this.network = network;
            this.batches = batches;
            this.input = input;
        }

        @Override
        public boolean hasNext() {
            if (next < ready.length) {
                return true;
            }
            group.clear();
            long tokens = 0;
            while (pending != null || input.hasNext()) {
                Tuple2<Long, BertTrainingRow> t = pending != null ? pending : input.next();
                pending = null;
                int length = t._2().ids.length;
                if (batches.closesBefore(group.size(), tokens, length)) {
                    pending = t;
                    break;
                }
                group.add(t);
                tokens += length;
            }
            ready = new BertClassifierRow[group.size()];
            next = 0;
            int[][] ids = new int[group.size()][];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = group.get(i)._2().ids;
            }
            float[][] states = network.hasFrozenPrefix() ? EncoderBatches.encode(ids, network::frozenStates) : null;
            for (int i = 0; i < ready.length; i++) {
                ready[i] = group.get(i)._2().laidOut(group.get(i)._1(), states == null ? null : states[i]);
            }
            return ready.length > 0;
        }

        @Override
        public BertClassifierRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return ready[next++];
        }
    }

    /** Decodes one internal row: ordinal 0 the ids, 1 the label (double), 2 the weight (double). */
    private record Decoder(String idsCol, String labelCol, String weightCol, boolean longIds, ClassCount classes,
                           int vocabSize, int maxPositions) implements Serializable {

        BertTrainingRow decode(InternalRow row) {
            if (row.isNullAt(1)) {
                return BertTrainingRow.invalid("column " + labelCol + " is null");
            }
            double label = row.getDouble(1);
            String labelProblem = classes.problem(label, labelCol);
            if (labelProblem != null) {
                return BertTrainingRow.invalid(labelProblem);
            }
            double weight = row.isNullAt(2) ? Double.NaN : row.getDouble(2);
            if (!(weight >= 0) || Double.isInfinite(weight)) {
                return BertTrainingRow.invalid("column " + weightCol + " is " + (row.isNullAt(2) ? "null" : weight)
                    + ", expected a finite weight >= 0");
            }
            if (row.isNullAt(0)) {
                return BertTrainingRow.invalid("column " + idsCol + " is null");
            }
            try {
                int[] ids = new TokenIds(idsCol, longIds, true, vocabSize).read(row.getArray(0), 1, maxPositions);
                return BertTrainingRow.valid(ids, (int) label, weight);
            } catch (RowDataException e) {
                return BertTrainingRow.invalid(e.getMessage());
            }
        }
    }

    /** One partition's row count, each row's tokens, weight, largest label and first problem (stops there). */
    private static final class Profile implements Serializable {
        private static final long serialVersionUID = 1L;

        long rows;
        int[] tokens = new int[16];
        double weight;
        int maxLabel = -1;
        String problem;
        long problemRow;

        static Profile of(Iterator<BertTrainingRow> it) {
            Profile p = new Profile();
            while (it.hasNext() && p.problem == null) {
                BertTrainingRow r = it.next();
                if (r.problem != null) {
                    p.problem = r.problem;
                    p.problemRow = p.rows;
                } else {
                    p.weight += r.weight;
                    p.maxLabel = Math.max(p.maxLabel, r.label);
                    if (p.rows == p.tokens.length) {
                        p.tokens = Arrays.copyOf(p.tokens, 2 * p.tokens.length);
                    }
                    p.tokens[(int) p.rows] = r.ids.length;
                }
                p.rows++;
            }
            p.tokens = Arrays.copyOf(p.tokens, (int) p.rows);
            return p;
        }
    }
}
