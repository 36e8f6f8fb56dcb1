package io.sparkattention.ml.classification;

import io.sparkattention.nn.LabelledSequence;
import io.sparkattention.rows.SequenceDecoder;
import io.sparkattention.sparkinternal.InternalFrames;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

/**
 * A fit's training rows, decoded once and cached ({@code MEMORY_AND_DISK}) for all the steps,
 * and validated before any step: every row usable, one embedding width, a non-empty set with a
 * positive total weight. {@link #close} unpersists the cache.
 */
final class TrainingData implements AutoCloseable {

    final JavaRDD<TrainingRow> rows;
    final TrainingProfile profile;
    /** Each partition's first row's position in the input. */
    private final long[] offsets;

    private TrainingData(JavaRDD<TrainingRow> rows, TrainingProfile profile, long[] offsets) {
        this.rows = rows;
        this.profile = profile;
        this.offsets = offsets;
    }

    /**
     * The rows as the network trains on them, each keyed by its position in the input (from 0),
     * which the engine samples by: a map over the cache, in the cache's partitioning.
     */
    JavaRDD<LabelledSequence> keyedRows() {
        long[] first = offsets;
        return rows.mapPartitionsWithIndex((p, it) -> keyed(first[p], it), true);
    }

    /** A partition's rows as the network's, keyed from {@code first} on. */
    private static Iterator<LabelledSequence> keyed(long first, Iterator<TrainingRow> rows) {
        return new Iterator<>() {
            private long key = first;

            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public LabelledSequence next() {
                TrainingRow r = rows.next();
                return new LabelledSequence(r.x, r.length, r.label, r.weight, key++);
            }
        };
    }

    /**
     * Decodes and validates the training columns.
     *
     * @param dataset      the training set, its label column already cast to double
     * @param featuresCol  the L×E features column
     * @param labelCol     the class index column
     * @param weightCol    the row weight column, or empty
     * @param keyLengthCol the valid-token count column, or empty
     * @param classes      the classes the labels must fall in
     * @throws IllegalArgumentException naming the row (its position in the input, from 1) and the
     *     column of the first unusable row, or when the set is empty or its weights sum to 0
     */
    static TrainingData decode(Dataset<?> dataset, String featuresCol, String labelCol, String weightCol,
                               String keyLengthCol, ClassCount classes) {
        SequenceDecoder type = ClassifierSchema.features(dataset.schema(), featuresCol, -1);
        Column weight = weightCol.isEmpty() ? lit(1.0) : col(weightCol).cast(DataTypes.DoubleType);
        Column keyLength = keyLengthCol.isEmpty() ? lit(null).cast(DataTypes.IntegerType)
            : col(keyLengthCol).cast(DataTypes.IntegerType);
        Dataset<Row> selected = dataset.select(col(featuresCol), col(labelCol).cast(DataTypes.DoubleType), weight,
            keyLength);
        JavaRDD<InternalRow> internal = InternalFrames.rows(selected).toJavaRDD();
        JavaRDD<TrainingRow> rows = internal
            .mapPartitions(new TrainingDecoder(type, featuresCol, labelCol, weightCol, keyLengthCol, classes))
            .persist(StorageLevel.MEMORY_AND_DISK());
        rows.setName("AttentionClassifier training rows");
        TrainingProfile profile;
        long[] offsets;
        try {
            List<TrainingProfile> parts = rows
                .mapPartitions(it -> Collections.singletonList(TrainingProfile.of(it, featuresCol)).iterator())
                .collect();
            profile = TrainingProfile.combine(parts, featuresCol);
            check(profile, weightCol);
            offsets = new long[parts.size()];
            for (int p = 1; p < offsets.length; p++) {
                offsets[p] = offsets[p - 1] + parts.get(p - 1).rows;
            }
        } catch (RuntimeException e) {
            rows.unpersist(false);
            throw e;
        }
        return new TrainingData(rows, profile, offsets);
    }

    private static void check(TrainingProfile profile, String weightCol) {
        if (profile.problem != null) {
            throw new IllegalArgumentException("row " + (profile.problemRow + 1) + ": " + profile.problem);
        }
        if (profile.rows == 0) {
            throw new IllegalArgumentException("the training set is empty: AttentionClassifier needs at least one row");
        }
        if (!(profile.weight > 0)) {
            throw new IllegalArgumentException("the weights in column " + weightCol + " sum to " + profile.weight
                + "; at least one row needs a positive weight");
        }
    }

    /** The embedding width E of every row. */
    int embedDim() {
        return profile.width;
    }

    @Override
    public void close() {
        rows.unpersist(false);
    }
}
