package io.sparkattention.exec;

import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.testing.Fixtures;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.NaiveAttention;
import io.sparkattention.testing.SparkTestSession;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The batch, head and sequence strategies on a real SparkSession: each against the float64
 * reference and the PyTorch fixtures (so all agree with each other), on the scaled dot-product
 * stage and on the projection path (MHA), with every kind of mask; plus the properties the
 * shuffling strategies promise — results independent of partitioning, duplicates kept, rows
 * named in data errors, weights refused by sequence.
 */
class ExecutionStrategiesTest {

    /** Small sequence blocks, so that the test rows are cut into many (query block, key block) units. */
    private static final int BLOCK_ROWS = 16;

    private final SparkSession spark = SparkTestSession.get();

    @BeforeEach
    void smallBlocks() {
        spark.conf().set(ExecutionSettings.SEQUENCE_BLOCK_ROWS, String.valueOf(BLOCK_ROWS));
    }

    @AfterEach
    void resetSettings() {
        spark.conf().unset(ExecutionSettings.SEQUENCE_BLOCK_ROWS);
        spark.conf().unset(ExecutionSettings.UNIT_PARTITIONS);
        spark.conf().unset(ExecutionSettings.AUTO_MIN_SHUFFLE_SCORES);
    }

    static Stream<Arguments> strategiesAndMasks() {
        List<Arguments> cases = new ArrayList<>();
        for (String strategy : new String[] {"batch", "head", "sequence"}) {
            for (String variant : new String[] {"plain", "causal_top_left", "causal_bottom_right_window"}) {
                cases.add(Arguments.of(strategy, variant));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("strategiesAndMasks")
    @DisplayName("random ragged GQA rows with padding, boolean mask and bias match the float64 reference")
    void randomRowsMatchReference(String strategy, String variant) {
        AttentionSpec spec = AttentionSpec.defaults();
        ScaledDotProductAttention sdpa = stage(strategy).setNumHeads(4).setNumKvHeads(2).setBlockSize(8);
        if (variant.startsWith("causal")) {
            spec = spec.withCausal(true);
            sdpa.setCausal(true);
        }
        if (variant.equals("causal_bottom_right_window")) {
            spec = spec.withAlignment(CausalAlignment.BOTTOM_RIGHT).withWindow(20, AttentionSpec.UNBOUNDED).withScale(0.3f);
            sdpa.setCausalAlignment("bottom_right").setWindowLeft(20).setScale(0.3);
        }
        boolean weights = !strategy.equals("sequence");
        if (weights) {
            sdpa.setWeightsCol("w").setAverageWeights(false);
        }
        RandomRows data = new RandomRows(variant.hashCode() * 31L + strategy.hashCode(), spec, 4, 2, 8, 6, 10,
            new int[] {1, 7, 33, 50}, true);
        List<Row> out = sdpa.transform(data.frame(spark, 3)).orderBy("id").collectAsList();
        assertEquals(data.rows.size(), out.size());
        for (int r = 0; r < out.size(); r++) {
            Row row = out.get(r);
            NaiveAttention.Result ref = data.references.get(r);
            assertClose(strategy + " row " + r + " output", ref.out, Matrices.flatten(row.getList(row.fieldIndex("out"))));
            assertEquals(data.shapes.get(r).queryLength(), row.getList(row.fieldIndex("out")).size());
            if (weights) {
                assertClose(strategy + " row " + r + " weights", ref.weights,
                    Matrices.flatten3(row.getList(row.fieldIndex("w"))));
            }
        }
    }

    @Test
    @DisplayName("long cross-attention rows over several sequence blocks: every strategy matches the reference")
    void longRowsAgree() {
        spark.conf().set(ExecutionSettings.SEQUENCE_BLOCK_ROWS, "512");
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT);
        RandomRows data = new RandomRows(77, spec, 2, 1, 32, 16, 4, new int[] {1100, 1500}, false);
        List<List<float[]>> byStrategy = new ArrayList<>();
        for (String strategy : new String[] {"batch", "head", "sequence"}) {
            List<Row> out = stage(strategy).setNumHeads(2).setNumKvHeads(1).setCausal(true)
                .setCausalAlignment("bottom_right").transform(data.frame(spark, 2)).orderBy("id").collectAsList();
            List<float[]> outputs = new ArrayList<>();
            for (int r = 0; r < out.size(); r++) {
                float[] got = Matrices.flatten(out.get(r).getList(out.get(r).fieldIndex("out")));
                assertClose(strategy + " row " + r, data.references.get(r).out, got);
                outputs.add(got);
            }
            byStrategy.add(outputs);
        }
        for (int s = 1; s < byStrategy.size(); s++) {
            for (int r = 0; r < data.rows.size(); r++) {
                float[] batch = byStrategy.get(0).get(r);
                double[] asDouble = new double[batch.length];
                for (int i = 0; i < batch.length; i++) {
                    asDouble[i] = batch[i];
                }
                assertClose((s == 1 ? "head" : "sequence") + " vs batch, row " + r, asDouble, byStrategy.get(s).get(r));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"batch", "head"})
    @DisplayName("averaged weights: head sums the heads' weights in head order, as the kernel does")
    void averagedWeights(String strategy) {
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true);
        RandomRows data = new RandomRows(5, spec, 3, 3, 4, 4, 6, new int[] {3, 20}, false);
        List<Row> out = stage(strategy).setNumHeads(3).setCausal(true).setWeightsCol("w")
            .transform(data.frame(spark, 2)).orderBy("id").collectAsList();
        for (int r = 0; r < out.size(); r++) {
            assertClose("row " + r + " weights", data.references.get(r).averagedWeights(3),
                Matrices.flatten(out.get(r).getList(out.get(r).fieldIndex("w"))));
        }
    }

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
    @ValueSource(strings = {"sdpa_seed_plain", "sdpa_seed_causal", "sdpa_seed_cross_long"})
    @DisplayName("the seed notebook's fixtures under head and sequence")
    void seedFixtures(String name) throws IOException {
        SafeTensors st = Fixtures.open(name);
        long[] qs = st.shape("input.query"), ks = st.shape("input.key"), vs = st.shape("input.value");
        int bh = (int) qs[0], L = (int) qs[1], d = (int) qs[2], S = (int) ks[1], dv = (int) vs[2];
        float[] q = st.floats("input.query"), k = st.floats("input.key"), v = st.floats("input.value");
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < bh; r++) {
            rows.add(RowFactory.create(r,
                Matrices.floats(Arrays.copyOfRange(q, r * L * d, (r + 1) * L * d), L, d),
                Matrices.floats(Arrays.copyOfRange(k, r * S * d, (r + 1) * S * d), S, d),
                Matrices.floats(Arrays.copyOfRange(v, r * S * dv, (r + 1) * S * dv), S, dv), null, null, null));
        }
        boolean causal = Fixtures.config(st).get("causal").asBoolean();
        double[] expected = st.doubles("expected.output");
        for (String strategy : new String[] {"head", "sequence"}) {
            List<Row> out = stage(strategy).setCausal(causal).setBlockSize(8)
                .transform(spark.createDataFrame(rows, RandomRows.SCHEMA).repartition(2)).orderBy("id").collectAsList();
            for (int r = 0; r < bh; r++) {
                assertClose(name + " " + strategy + " row " + r,
                    Arrays.copyOfRange(expected, r * L * dv, (r + 1) * L * dv),
                    Matrices.flatten(out.get(r).getList(out.get(r).fieldIndex("out"))));
            }
        }
    }

    static Stream<Arguments> mhaFixturesAndStrategies() {
        List<Arguments> cases = new ArrayList<>();
        for (String name : Fixtures.MHA) {
            for (String strategy : new String[] {"batch", "head", "sequence"}) {
                cases.add(Arguments.of(name, strategy));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("mhaFixturesAndStrategies")
    @DisplayName("PyTorch nn.MultiheadAttention fixtures through prepare (projections) and finish (output projection)")
    void mhaFixtures(String name, String strategy) throws IOException {
        SafeTensors st = Fixtures.open(name);
        JsonNode config = Fixtures.config(st);
        int heads = config.get("num_heads").asInt(), E = config.get("embed_dim").asInt();
        MultiHeadAttentionWeights weights = MultiHeadAttentionStateDict.load(st, "state_dict.", heads);
        AttentionSpec spec = AttentionSpec.defaults().withCausal(config.get("causal").asBoolean()).withBlocks(8, 8);
        boolean perHead = config.has("average_attn_weights") && !config.get("average_attn_weights").asBoolean();
        boolean hasWeights = st.has("expected.attn_weights") && !strategy.equals("sequence");
        AttentionWeightsMode mode = !hasWeights ? AttentionWeightsMode.NONE : perHead ? AttentionWeightsMode.PER_HEAD : AttentionWeightsMode.AVERAGED;
        LayerJob job = new LayerJob(new MultiHeadAttentionLayer(weights, new FlashAttention(spec)), mode);

        long[] qs = st.shape("input.query");
        int B = (int) qs[0], L = (int) qs[1];
        float[] query = st.floats("input.query");
        boolean cross = st.has("input.key");
        float[] key = cross ? st.floats("input.key") : query, value = cross ? st.floats("input.value") : query;
        int S = cross ? (int) st.shape("input.key")[1] : L;
        int kdim = weights.kdim(), vdim = weights.vdim();
        long[] lengths = st.has("input.lengths") ? st.longs("input.lengths") : null;
        float[] bias = st.has("input.attn_mask") ? st.floats("input.attn_mask") : null;
        List<Row> rows = new ArrayList<>();
        for (int b = 0; b < B; b++) {
            rows.add(RowFactory.create(b,
                Matrices.floats(Arrays.copyOfRange(query, b * L * E, (b + 1) * L * E), L, E),
                Matrices.floats(Arrays.copyOfRange(key, b * S * kdim, (b + 1) * S * kdim), S, kdim),
                Matrices.floats(Arrays.copyOfRange(value, b * S * vdim, (b + 1) * S * vdim), S, vdim),
                lengths == null ? null : (int) lengths[b],
                bias == null ? null : Arrays.copyOfRange(bias, b * heads * L * S, (b + 1) * heads * L * S)));
        }
        Dataset<Row> df = spark.createDataFrame(rows, LayerJob.INPUT).repartition(2);
        List<Row> out = AttentionExecution.transform(df, job, Strategy.parse(strategy)).orderBy("id").collectAsList();

        double[] expected = st.doubles("expected.attn_output");
        double[] expectedWeights = hasWeights ? st.doubles("expected.attn_weights") : null;
        int weightsPerRow = hasWeights ? expectedWeights.length / B : 0;
        for (int b = 0; b < B; b++) {
            Row row = out.get(b);
            assertClose(name + " " + strategy + " batch " + b + " output",
                Arrays.copyOfRange(expected, b * L * E, (b + 1) * L * E), Matrices.flatten(row.getList(row.fieldIndex("out"))));
            if (hasWeights) {
                float[] got = perHead ? Matrices.flatten3(row.getList(row.fieldIndex("weights")))
                    : Matrices.flatten(row.getList(row.fieldIndex("weights")));
                assertClose(name + " " + strategy + " batch " + b + " weights",
                    Arrays.copyOfRange(expectedWeights, b * weightsPerRow, (b + 1) * weightsPerRow), got);
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

    private static ScaledDotProductAttention stage(String strategy) {
        return new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k").setValueCol("v").setKeyLengthCol("len")
            .setAttnMaskCol("mask").setAttnBiasCol("bias").setOutputCol("out").setStrategy(strategy);
    }
}
