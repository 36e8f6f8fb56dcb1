package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.sparkattention.exec.RandomRows.stage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the shuffling strategies promise on a real SparkSession — results independent of
 * partitioning, duplicates kept, rows named in data errors, weights refused by sequence — and
 * which strategy auto resolves to there.
 */
@ExtendWith(SmallSequenceBlocks.class)
class ShufflingStrategiesTest {

    private final SparkSession spark = SparkTestSession.get();

    @ParameterizedTest
    @ValueSource(strings = {"head", "sequence"})
    @DisplayName("results do not depend on input or unit partitioning: bitwise equal")
    void resultsDoNotDependOnPartitioning(String strategy) {
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true);
        RandomRows data = new RandomRows(11, spec, 2, 1, 8, 8, 8, new int[] {5, 40, 70}, true);
        List<float[]> reference = null;
        for (int[] partitions : new int[][] {{1, 1}, {4, 7}, {2, 3}}) {
            spark.conf().set(ExecutionSettings.UNIT_PARTITIONS, String.valueOf(partitions[1]));
            Dataset<Row> out = stage(strategy).setNumHeads(2).setNumKvHeads(1).setCausal(true)
                .transform(data.frame(spark, partitions[0]));
            assertEquals(partitions[0], out.rdd().getNumPartitions(), "the output keeps the input's partitions");
            assertTrue(out.queryExecution().executedPlan().toString().contains("Scan ExistingRDD"),
                "units run as an RDD chain, not as the row expression: " + out.queryExecution().executedPlan());
            List<float[]> outputs = new ArrayList<>();
            for (Row row : out.orderBy("id").collectAsList()) {
                outputs.add(Matrices.flatten(row.getList(row.fieldIndex("out"))));
            }
            if (reference == null) {
                reference = outputs;
            } else {
                for (int r = 0; r < outputs.size(); r++) {
                    assertArrayEquals(reference.get(r), outputs.get(r), "row " + r + " with " + Arrays.toString(partitions));
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"head", "sequence"})
    @DisplayName("identical rows, a null query and rows without keys each keep their own output row")
    void duplicatesNullsAndEmptyRows(String strategy) {
        float[][] q = {{1, 2, 3, 4}, {0.5f, -1, 2, 0}, {3, 1, 0, -2}};
        List<Row> rows = List.of(
            RowFactory.create(7, q, q, q, null, null, null),
            RowFactory.create(7, q, q, q, null, null, null),
            RowFactory.create(8, null, q, q, null, null, null),
            RowFactory.create(9, q, new float[0][], new float[0][], null, null, null));
        List<Row> out = stage(strategy).setNumHeads(2)
            .transform(spark.createDataFrame(rows, RandomRows.SCHEMA).coalesce(1)).orderBy("id").collectAsList();
        assertEquals(4, out.size());
        assertEquals(out.get(0).getList(7), out.get(1).getList(7));
        assertEquals(3, out.get(0).getList(7).size());
        assertNull(out.get(2).get(7));
        assertArrayEquals(new float[12], Matrices.flatten(out.get(3).getList(7)));
    }

    @Test
    @DisplayName("sequence refuses attention weights before any job runs, naming the param")
    void sequenceRefusesWeights() {
        RandomRows data = new RandomRows(1, AttentionSpec.defaults(), 1, 1, 4, 4, 2, new int[] {3}, false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> stage("sequence").setWeightsCol("w").transform(data.frame(spark, 1)));
        assertTrue(e.getMessage().startsWith("strategy sequence does not produce attention weights")
            && e.getMessage().contains("weightsCol"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"head", "sequence"})
    @DisplayName("data errors name the row and the column, as with batch")
    void dataErrorsNameTheRow(String strategy) {
        List<Row> rows = List.of(
            RowFactory.create(1, new float[][] {{1, 2}, {3, 4}}, null, null, 1, null, null),
            RowFactory.create(2, new float[][] {{1, 2}}, null, null, 3, null, null));
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setQueryCol("q").setKeyLengthCol("len")
            .setRowIdCol("id").setStrategy(strategy);
        Exception e = assertThrows(Exception.class,
            () -> sdpa.transform(spark.createDataFrame(rows, RandomRows.SCHEMA).coalesce(1)).collect());
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        assertEquals("row 2: column len is 3, outside [0, 1] (the row has 1 keys)", t.getMessage());
    }

    @Test
    @DisplayName("auto: batch for small work; sequence for one long head; never sequence with weights; batch on streams")
    void autoResolution() {
        RandomRows small = new RandomRows(3, AttentionSpec.defaults(), 2, 2, 4, 4, 4, new int[] {8}, false);
        assertEquals(Strategy.BATCH, resolve(small.frame(spark, 2), 2, AttentionWeightsMode.NONE));

        spark.conf().set(ExecutionSettings.AUTO_MIN_SHUFFLE_SCORES, "0");
        RandomRows oneLong = new RandomRows(3, AttentionSpec.defaults(), 1, 1, 4, 4, 2, new int[] {64}, false);
        Dataset<Row> longRow = oneLong.frame(spark, 1).where("id = 1");
        assertEquals(Strategy.SEQUENCE, resolve(longRow, 1, AttentionWeightsMode.NONE));
        assertEquals(Strategy.BATCH, resolve(longRow, 1, AttentionWeightsMode.AVERAGED));
        assertEquals(Strategy.HEAD, resolve(longRow, 8, AttentionWeightsMode.NONE));

        Dataset<Row> stream = spark.readStream().format("rate").load();
        assertEquals(Strategy.BATCH, AttentionExecution.resolve(stream, job(1, AttentionWeightsMode.NONE), Strategy.AUTO));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> AttentionExecution.resolve(stream, job(1, AttentionWeightsMode.NONE), Strategy.HEAD));
        assertTrue(e.getMessage().contains("cannot run on a streaming DataFrame"), e.getMessage());
    }

    private Strategy resolve(Dataset<Row> df, int heads, AttentionWeightsMode mode) {
        return AttentionExecution.resolve(df, job(heads, mode), Strategy.AUTO);
    }

    /** A job whose only use is sizing: it reads column q for L and k for S. */
    private static AttentionJob job(int heads, AttentionWeightsMode mode) {
        return new SizingJob(heads, mode);
    }

    /** What {@link AttentionExecution#resolve} reads of a job; it is never run. */
    private static final class SizingJob implements AttentionJob {
        private static final long serialVersionUID = 1L;
        private final int heads;
        private final AttentionWeightsMode mode;

        SizingJob(int heads, AttentionWeightsMode mode) {
            this.heads = heads;
            this.mode = mode;
        }

        @Override
        public List<String> inputColumns() {
            return List.of("q", "k");
        }

        @Override
        public String keyColumn() {
            return "k";
        }

        @Override
        public int numHeads() {
            return heads;
        }

        @Override
        public String rowIdColumn() {
            return null;
        }

        @Override
        public org.apache.spark.sql.types.StructType outputStruct() {
            throw new UnsupportedOperationException();
        }

        @Override
        public AttentionWeightsMode weightsMode() {
            return mode;
        }

        @Override
        public FlashAttention kernel() {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.sparkattention.nn.PreparedSequence prepare(Object[] values) {
            throw new UnsupportedOperationException();
        }

        @Override
        public float[] finish(float[] attended, int queryLength) {
            throw new UnsupportedOperationException();
        }

        @Override
        public org.apache.spark.sql.catalyst.InternalRow encode(float[] output, float[] weights,
                                                                 io.sparkattention.kernel.AttentionShape shape) {
            throw new UnsupportedOperationException();
        }
    }
}
