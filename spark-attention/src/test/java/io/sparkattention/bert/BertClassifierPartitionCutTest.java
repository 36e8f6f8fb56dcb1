package io.sparkattention.bert;

import io.sparkattention.ml.Shipped;
import io.sparkattention.ml.training.Trainer;
import io.sparkattention.ml.training.TrainingSettings;
import io.sparkattention.nn.Pooling;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.sparkattention.bert.BertClassifierGradientTest.randomEncoder;
import static io.sparkattention.bert.BertClassifierGradientTest.randomIds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A fit's bits depend on the rows of each leaf of the fixed-order sums, not on how a leaf's rows
 * are cut into partitions: the training engine ({@link Trainer}) hands a leaf's sampled rows to
 * the evaluator in runs of {@link BertClassifierNetwork#rowsPerRun()} that span its partitions
 * (ending only when full or at the leaf's last partition), so the same rows in 2, 7 or 13
 * partitions (empty ones among them, runs crossing several) give the same loss history and
 * weights, bit for bit. A fit of a small BERT classifier, everything trained (the word embedding's
 * touched rows too), dropout on, a 0.8 sample, AdamW with warmup and clipping, on a real Spark
 * session with one task slot read, so two leaves.
 */
class BertClassifierPartitionCutTest {

    /** Rows per leaf: more than a run of 32 once sampled at 0.8, so every leaf flushes a full run and a rest. */
    private static final int LEAF_ROWS = 45;
    private static final int SLOTS = 1;

    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());

    private static BertClassifierNetwork network() {
        BertWeights encoder = randomEncoder(1, 8, 2, 12, 40, 16, 3);
        RandomTensors random = new RandomTensors(4);
        return new BertClassifierNetwork(encoder, random.normal(3 * 8, 0.3), random.normal(3, 0.1),
            new BertClassifierSettings(-1, Pooling.MEAN, 0.1));
    }

    /** 2 × LEAF_ROWS rows keyed by position, of 2 to 16 tokens. */
    private static List<BertClassifierRow> rows() {
        List<BertClassifierRow> rows = new ArrayList<>();
        for (int r = 0; r < 2 * LEAF_ROWS; r++) {
            rows.add(BertClassifierRow.of(randomIds(2 + (r * 7) % 15, 40, 31L * r), r % 3, 0.5 + (r % 4) / 4.0, r));
        }
        return rows;
    }

    /** The rows, in order, in partitions of {@code sizes} rows. */
    private JavaRDD<BertClassifierRow> cut(List<BertClassifierRow> rows, int... sizes) {
        List<List<BertClassifierRow>> parts = new ArrayList<>();
        int at = 0;
        for (int size : sizes) {
            parts.add(new ArrayList<>(rows.subList(at, at + size)));
            at += size;
        }
        assertEquals(rows.size(), at, "the cut covers every row once");
        // One list per partition: parallelize puts element p of P into partition p.
        JavaRDD<BertClassifierRow> rdd = sc.parallelize(parts, sizes.length).flatMap(List::iterator).cache();
        assertEquals(Arrays.stream(sizes).boxed().toList(), rdd.glom().map(List::size).collect());
        return rdd;
    }

    /** The fit's loss history and final weights. */
    private Fit fit(JavaRDD<BertClassifierRow> rows) {
        BertClassifierNetwork network = network();
        TrainingSettings settings = new TrainingSettings("adamw", 0.01, 0.01, 2, 1.0, 4, 0.8, 0, 5);
        Broadcast<Shipped<BertClassifierNetwork>> shipped = sc.broadcast(Shipped.of(network));
        try {
            float[] theta = network.initialParameters();
            double[] history = new Trainer<BertClassifierRow>("cut", sc, settings, null)
                .train(rows, SLOTS, shipped, BertClassifierRow::key, theta);
            return new Fit(history, theta);
        } finally {
            shipped.destroy();
            rows.unpersist();
        }
    }

    private record Fit(double[] history, float[] theta) {
    }

    @Test
    @DisplayName("the same rows per leaf in 2, 7 or 13 partitions (empty ones, runs across partitions) give the "
        + "same loss history and weights, bit for bit; a row moved to the other leaf changes them")
    void leafRowsNotPartitionCutsFixTheBits() {
        List<BertClassifierRow> rows = rows();
        // Two leaves: partitions [0, ⌊P/2⌋) and [⌊P/2⌋, P), each holding LEAF_ROWS rows.
        Fit two = fit(cut(rows, LEAF_ROWS, LEAF_ROWS));
        Fit seven = fit(cut(rows, 20, 0, 25, 1, 30, 0, 14));
        Fit thirteen = fit(cut(rows, 7, 7, 0, 9, 11, 11, 3, 3, 3, 0, 20, 8, 8));
        for (Fit other : List.of(seven, thirteen)) {
            assertArrayEquals(two.history(), other.history(), 0.0);
            assertArrayEquals(two.theta(), other.theta(), 0f);
        }
        assertFalse(two.history()[0] == two.history()[4], "the fit moves");

        Fit moved = fit(cut(rows, LEAF_ROWS - 1, LEAF_ROWS + 1));
        assertFalse(Arrays.equals(two.theta(), moved.theta()), "another leaf cut sums in another order");
    }
}
