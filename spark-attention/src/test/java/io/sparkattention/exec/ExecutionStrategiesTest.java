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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.sparkattention.exec.RandomRows.stage;
import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The batch, head and sequence strategies on a real SparkSession: each against the float64
 * reference and the PyTorch fixtures (so all agree with each other), on the scaled dot-product
 * stage and on the projection path (MHA), with every kind of mask.
 */
@ExtendWith(SmallSequenceBlocks.class)
class ExecutionStrategiesTest {

    private final SparkSession spark = SparkTestSession.get();

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
}
