package io.sparkattention.ml;

import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.classification.BertClassifier;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.ml.feature.RotaryPositionalEncoding;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

import static io.sparkattention.ml.StageChecks.assertParamsContract;
import static io.sparkattention.ml.StageChecks.assertSaveLoad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MLlib contracts of every stage (MLlib's {@code ParamsSuite} and {@code DefaultReadWriteTest}):
 * params, copy, save/overwrite/load, model and pipeline round trips with identical output, and the
 * service entries Spark Connect ML loads stages through.
 */
class StagePersistenceTest {

    private static final DataType MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    /** One of each stage, with some params set away from their defaults. */
    private static List<Params> stages() {
        return List.of(
            new ScaledDotProductAttention().setQueryCol("q").setNumHeads(2).setCausal(true).setScale(0.5)
                .setWeightsCol("w").setAverageWeights(false).setStrategy("batch"),
            new MultiHeadAttention().setNumHeads(4).setSeed(3).setBias(false).setWeightsPrefix("self_attn.")
                .setKeyLengthCol("len"),
            MultiHeadAttentionTest.fixtureModel("mha_self_basic", 4).setCausal(true).setWeightsCol("w"),
            new SinusoidalPositionalEncoding().setInputCol("e").setOutputCol("x").setBase(100).setPositionOffset(2),
            new RotaryPositionalEncoding().setKeyCol("k").setNumHeads(4).setNumKvHeads(2).setBase(500000));
    }

    @Test
    @DisplayName("params: docs, owners, defaults (scale alone has none), explainParams, copy keeps uid and values")
    void paramsContract() {
        for (Params stage : stages()) {
            if (stage instanceof AttentionParams) {
                assertParamsContract(stage, "scale");
            } else {
                assertParamsContract(stage);
            }
        }
    }

    @Test
    @DisplayName("save → refused re-save → overwrite → load gives the same uid and params, for every stage")
    void saveOverwriteLoad() throws IOException {
        for (Params stage : stages()) {
            Params loaded = assertSaveLoad((Params & org.apache.spark.ml.util.MLWritable) stage, dir);
            if (stage instanceof MultiHeadAttentionModel) {
                assertSameWeights(((MultiHeadAttentionModel) stage).weights(),
                    ((MultiHeadAttentionModel) loaded).weights());
            }
        }
    }

    @Test
    @DisplayName("a saved model is a PyTorch state_dict: the weights file loads as nn.MultiheadAttention's")
    void savedWeightsAreAStateDict() throws IOException {
        MultiHeadAttentionModel model = MultiHeadAttentionTest.fixtureModel("mha_cross_kdim_vdim", 2);
        String path = dir.resolve("model").toString();
        model.write().save(path);
        SafeTensors st = SafeTensors.read(dir.resolve("model/data/weights.safetensors"));
        assertEquals(List.of("in_proj_bias", "k_proj_weight", "out_proj.bias", "out_proj.weight", "q_proj_weight",
            "v_proj_weight"), st.names());
        assertEquals("2", st.metadata().get("num_heads"));
        assertSameWeights(model.weights(), MultiHeadAttentionStateDict.load(st, "", 2));
    }

    @Test
    @DisplayName("a model saved and loaded gives bit-identical output")
    void modelRoundTripGivesIdenticalOutput() throws IOException {
        MultiHeadAttentionModel model = MultiHeadAttentionTest.fixtureModel("mha_self_basic", 4).setCausal(true)
            .setWeightsCol("w");
        Dataset<Row> df = randomRows(16, 5);
        MultiHeadAttentionModel loaded = assertSaveLoad(model, dir);
        assertIdentical(model.transform(df), loaded.transform(df));
    }

    @Test
    @DisplayName("embeddings → sinusoidal → rotary → multi-head attention → SDPA: Pipeline and PipelineModel "
        + "round trips give identical output")
    void pipelineRoundTrip() throws IOException {
        Dataset<Row> df = randomRows(16, 6);
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
            new SinusoidalPositionalEncoding().setInputCol("query").setOutputCol("x"),
            new RotaryPositionalEncoding().setQueryCol("x").setQueryOutputCol("x_rope").setNumHeads(4),
            new MultiHeadAttention().setQueryCol("x_rope").setNumHeads(4).setSeed(5).setOutputCol("mha")
                .setCausal(true),
            new ScaledDotProductAttention().setQueryCol("mha").setNumHeads(2).setOutputCol("sdpa").setWeightsCol("w")});
        PipelineModel fitted = pipeline.fit(df);
        Dataset<Row> expected = fitted.transform(df);

        String pipelinePath = dir.resolve("pipeline").toString();
        pipeline.write().save(pipelinePath);
        Pipeline loadedPipeline = Pipeline.load(pipelinePath);
        assertEquals(pipeline.getStages().length, loadedPipeline.getStages().length);
        assertIdentical(expected, loadedPipeline.fit(df).transform(df));

        String modelPath = dir.resolve("pipeline-model").toString();
        fitted.write().save(modelPath);
        PipelineModel loadedModel = PipelineModel.load(modelPath);
        for (int i = 0; i < fitted.stages().length; i++) {
            StageChecks.assertSameParams(fitted.stages()[i], loadedModel.stages()[i]);
        }
        assertIdentical(expected, loadedModel.transform(df));
    }

    @Test
    @DisplayName("a 67M-parameter model (E = 4096, 32 heads) saves and loads bit for bit, tensor by tensor")
    void largeModelSavesAndLoads() throws IOException {
        MultiHeadAttentionWeights weights = MultiHeadAttentionInit.pytorchDefault(4096, 32, 4096, 4096, true, 1);
        assertEquals(67_125_248L, weights.parameterCount());
        String path = dir.resolve("large").toString();
        new MultiHeadAttentionModel(weights).write().save(path);
        assertTrue(Files.size(dir.resolve("large/data/weights.safetensors")) > 4 * weights.parameterCount());
        MultiHeadAttentionModel loaded = MultiHeadAttentionModel.load(path);
        assertSameWeights(weights, loaded.weights());
        assertEquals(32, loaded.getNumHeads());
    }

    @Test
    @DisplayName("META-INF/services lists every transformer and model, and the estimator, with no-arg constructors")
    @SuppressWarnings("rawtypes")  // Estimator.class is the raw type ServiceLoader is keyed by
    void serviceEntries() {
        // stream() lists providers without instantiating them (some of Spark's own need arguments).
        List<ServiceLoader.Provider<Transformer>> ours = ServiceLoader.load(Transformer.class).stream()
            .filter(p -> p.type().getName().startsWith("io.sparkattention")).collect(Collectors.toList());
        assertEquals(List.of(MultiHeadAttentionModel.class.getName(),
                ScaledDotProductAttention.class.getName(), AttentionClassificationModel.class.getName(),
                BertClassificationModel.class.getName(), BertEncoderModel.class.getName(),
                HuggingFaceTokenizer.class.getName(), RotaryPositionalEncoding.class.getName(),
                SinusoidalPositionalEncoding.class.getName()),
            ours.stream().map(p -> p.type().getName()).sorted().collect(Collectors.toList()));
        ours.forEach(p -> assertTrue(p.get().uid().length() > 0, p.type() + " instantiates"));
        ServiceLoader<org.apache.spark.ml.Estimator> loader = ServiceLoader.load(org.apache.spark.ml.Estimator.class);
        List<String> estimators = loader.stream()
            .map(p -> p.type().getName()).filter(n -> n.startsWith("io.sparkattention")).sorted()
            .collect(Collectors.toList());
        assertEquals(List.of(MultiHeadAttention.class.getName(), AttentionClassifier.class.getName(),
            BertClassifier.class.getName()), estimators);
    }

    private Dataset<Row> randomRows(int width, int count) {
        RandomTensors rnd = new RandomTensors(width * 31L + count);
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < count; r++) {
            int L = rnd.pick(1, 4, 9);
            rows.add(RowFactory.create(r, Matrices.floats(rnd.normal(L * width, 1), L, width)));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("query", MATRIX);
        return spark.createDataFrame(rows, schema).repartition(2);
    }

    /** Same schema and the same rows, value for value (floats compared bit for bit). */
    private static void assertIdentical(Dataset<Row> expected, Dataset<Row> actual) {
        assertEquals(expected.schema(), actual.schema());
        List<Row> a = expected.orderBy("id").collectAsList(), b = actual.orderBy("id").collectAsList();
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            assertEquals(a.get(i), b.get(i), "row " + i);
        }
    }

    private static void assertSameWeights(MultiHeadAttentionWeights a, MultiHeadAttentionWeights b) {
        assertEquals(a.embedDim(), b.embedDim());
        assertEquals(a.numHeads(), b.numHeads());
        assertEquals(a.kdim(), b.kdim());
        assertEquals(a.vdim(), b.vdim());
        assertArrayEquals(a.qWeight(), b.qWeight());
        assertArrayEquals(a.kWeight(), b.kWeight());
        assertArrayEquals(a.vWeight(), b.vWeight());
        assertArrayEquals(a.outWeight(), b.outWeight());
        assertArrayEquals(a.qBias(), b.qBias());
        assertArrayEquals(a.kBias(), b.kBias());
        assertArrayEquals(a.vBias(), b.vBias());
        assertArrayEquals(a.outBias(), b.outBias());
    }
}
