package io.sparkattention.ml.classification;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.MultiHeadAttentionModel;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.SparkContext;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Matrices;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.tuning.CrossValidator;
import org.apache.spark.ml.tuning.CrossValidatorModel;
import org.apache.spark.ml.tuning.ParamGridBuilder;
import org.apache.spark.ml.tuning.TrainValidationSplit;
import org.apache.spark.ml.tuning.TrainValidationSplitModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.sparkattention.ml.StageChecks.assertParamsContract;
import static io.sparkattention.ml.StageChecks.assertSaveLoad;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classifier as an MLlib citizen: params contract, MLlib's evaluators and tuning, Pipeline
 * persistence, the PyTorch export and the trained attention layer.
 */
class AttentionClassifierMLlibTest {

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(15).setStepSize(0.02).setSeed(5);
    }

    @Test
    @DisplayName("params: docs, owners (MLlib's inherited ones too), defaults, copy; the estimator saves and loads")
    void paramsContract() throws IOException {
        AttentionClassifier estimator = stage().setPooling("last").setCausal(true).setSolver("gd").setTol(1e-4);
        assertParamsContract(estimator, "thresholds");
        assertSaveLoad(estimator, dir);
        assertEquals("features", new AttentionClassifier().getFeaturesCol());
        assertTrue(new AttentionClassifier().getResidual());
    }

    @Test
    @DisplayName("transform adds rawPrediction (K logits), probability (their softmax) and a prediction in [0, K)")
    void transformColumns() {
        Dataset<Row> df = ClassifierData.random(spark, 30, 8, 3, 21, 2);
        AttentionClassificationModel model = stage().fit(df);
        assertEquals(3, model.numClasses());
        assertParamsContract(model, "thresholds");
        List<Row> rows = model.transform(df).select("rawPrediction", "probability", "prediction").collectAsList();
        for (Row r : rows) {
            double[] raw = ((Vector) r.get(0)).toArray();
            double[] p = ((Vector) r.get(1)).toArray();
            assertEquals(3, raw.length);
            double sum = 0;
            int argmax = 0;
            for (int k = 0; k < 3; k++) {
                sum += p[k];
                argmax = raw[k] > raw[argmax] ? k : argmax;
            }
            assertEquals(1, sum, 1e-12);
            assertEquals(argmax, r.getDouble(2));
        }
        Vector single = model.predictRaw(Matrices.dense(2, 8, new double[16]));
        assertEquals(3, single.size());
        assertThrows(IllegalArgumentException.class, () -> model.setNumHeads(4).transform(df),
            "the network's shape params cannot change on the model");
    }

    @Test
    @DisplayName("a model's transforms and its copies share one broadcast of its parameters")
    void oneBroadcastPerModel() {
        Dataset<Row> df = ClassifierData.random(spark, 12, 4, 2, 23, 2);
        AttentionClassificationModel model = stage().fit(df);
        List<Row> first = model.transform(df).select("rawPrediction").collectAsList();
        List<Row> second = model.transform(df).select("rawPrediction").collectAsList();
        assertEquals(first, second);
        SparkContext sc = spark.sparkContext();
        assertSame(model.shippedParameters(sc), model.shippedParameters(sc));
        AttentionClassificationModel copy = model.copy(ParamMap.empty());
        assertSame(model.shippedParameters(sc), copy.shippedParameters(sc));
        assertEquals(first, copy.transform(df).select("rawPrediction").collectAsList());
    }

    @Test
    @DisplayName("CrossValidator over numHeads × stepSize with MulticlassClassificationEvaluator picks and refits")
    void crossValidator() {
        Dataset<Row> df = ClassifierData.random(spark, 48, 8, 3, 31, 2).cache();
        AttentionClassifier estimator = stage().setMaxIter(8);
        ParamMap[] grid = new ParamGridBuilder()
            .addGrid(estimator.numHeads(), new int[] {1, 2})
            .addGrid(estimator.stepSize(), new double[] {0.001, 0.05})
            .build();
        CrossValidatorModel cv = new CrossValidator().setEstimator(estimator).setEstimatorParamMaps(grid)
            .setEvaluator(new MulticlassClassificationEvaluator().setMetricName("accuracy"))
            .setNumFolds(2).setSeed(3).fit(df);
        assertEquals(4, cv.avgMetrics().length);
        AttentionClassificationModel best = (AttentionClassificationModel) cv.bestModel();
        double accuracy = new MulticlassClassificationEvaluator().setMetricName("accuracy")
            .evaluate(best.transform(df));
        assertTrue(accuracy > 1.0 / 3, "accuracy " + accuracy);
        df.unpersist();
    }

    @Test
    @DisplayName("TrainValidationSplit and BinaryClassificationEvaluator work unchanged on two classes")
    void binaryTuning() {
        Dataset<Row> df = ClassifierData.random(spark, 40, 4, 2, 41, 2);
        AttentionClassifier estimator = stage().setMaxIter(5);
        ParamMap[] grid = new ParamGridBuilder().addGrid(estimator.pooling(),
            scala.jdk.javaapi.CollectionConverters.asScala(List.of("mean", "first")).toSeq()).build();
        TrainValidationSplitModel tvs = new TrainValidationSplit().setEstimator(estimator)
            .setEstimatorParamMaps(grid).setEvaluator(new BinaryClassificationEvaluator()).setSeed(4).fit(df);
        double auc = new BinaryClassificationEvaluator().evaluate(tvs.bestModel().transform(df));
        assertTrue(auc >= 0 && auc <= 1, "areaUnderROC " + auc);
    }

    @Test
    @DisplayName("the model saves and loads alone and inside a PipelineModel, predicting bit for bit the same")
    void persistence() throws IOException {
        Dataset<Row> df = ClassifierData.random(spark, 24, 8, 3, 51, 2);
        AttentionClassificationModel model = stage().setMaxIter(3).fit(df);
        AttentionClassificationModel loaded = assertSaveLoad(model, dir);
        assertArrayEquals(model.parameters(), loaded.parameters());
        assertFalse(loaded.hasSummary());
        assertEquals(collectRaw(model.transform(df)), collectRaw(loaded.transform(df)));

        PipelineModel pipeline = new Pipeline().setStages(new PipelineStage[] {stage().setMaxIter(3)}).fit(df);
        String path = dir.resolve("pipeline").toString();
        pipeline.write().save(path);
        PipelineModel back = PipelineModel.load(path);
        assertEquals(collectRaw(pipeline.transform(df)), collectRaw(back.transform(df)));
        assertTrue(back.stages()[0] instanceof AttentionClassificationModel);
    }

    @Test
    @DisplayName("exportPyTorch writes the state_dict that fromSafeTensors and MultiHeadAttentionModel read back")
    void exportRoundTrip() throws IOException {
        Dataset<Row> df = ClassifierData.random(spark, 24, 8, 3, 61, 2);
        AttentionClassificationModel model = stage().setMaxIter(3).setPooling("first").fit(df);
        String file = dir.resolve("cls.safetensors").toString();
        model.exportPyTorch(file);

        SafeTensors st = SafeTensors.read(Path.of(file));
        assertEquals(Set.of(ClassifierData.STATE_DICT), Set.copyOf(st.names()));
        assertArrayEquals(new long[] {24, 8}, st.shape("attention.in_proj_weight"));
        assertArrayEquals(new long[] {3, 8}, st.shape("classifier.weight"));

        AttentionClassificationModel back = AttentionClassificationModel.fromSafeTensors(file, 2, false, true, "first");
        assertArrayEquals(model.parameters(), back.parameters());
        assertEquals(collectRaw(model.transform(df)), collectRaw(back.transform(df)));

        MultiHeadAttentionModel layer = MultiHeadAttentionModel.fromSafeTensors(file, 2, "attention.");
        MultiHeadAttentionWeights a = model.attention().weights();
        MultiHeadAttentionWeights b = layer.weights();
        assertArrayEquals(a.qWeight(), b.qWeight());
        assertArrayEquals(a.kBias(), b.kBias());
        assertArrayEquals(a.outWeight(), b.outWeight());
        assertArrayEquals(a.outBias(), b.outBias());
        assertEquals(2, model.attention().getNumHeads());
        assertEquals("features", model.attention().getQueryCol());
        assertEquals(24, model.attention().transform(df).select("attn_output").count());
        assertThrows(IllegalArgumentException.class,
            () -> AttentionClassificationModel.fromSafeTensors(file, 3, false, true, "first"), "3 heads do not divide 8");
    }

    @Test
    @DisplayName("two exports of one model are byte-identical, metadata keys in order, and leave no .crc file")
    void exportIsDeterministic() throws IOException {
        AttentionClassificationModel model = stage().setMaxIter(1).fit(ClassifierData.random(spark, 12, 4, 2, 63, 1));
        Path a = dir.resolve("a.safetensors");
        Path b = dir.resolve("b.safetensors");
        model.exportPyTorch(a.toString());
        model.exportPyTorch(b.toString());

        assertArrayEquals(Files.readAllBytes(a), Files.readAllBytes(b));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(Set.of("a.safetensors", "b.safetensors"),
                files.map(f -> f.getFileName().toString()).collect(Collectors.toSet()));
        }
        List<String> keys = List.copyOf(SafeTensors.read(a).metadata().keySet());
        assertEquals(keys.stream().sorted().toList(), keys);
    }

    @Test
    @DisplayName("keyLengthCol is explicit: empty by default even when the input has key_length, and the line fit "
        + "and transform log says which column bounds the tokens")
    void keyLengthColumnIsExplicit() {
        StructType schema = new StructType().add("features", ClassifierData.MATRIX).add("label", DataTypes.DoubleType)
            .add("key_length", DataTypes.IntegerType);
        AttentionClassifier stage = new AttentionClassifier();
        assertEquals("", stage.getKeyLengthCol());
        assertEquals("keyLengthCol is empty: every token of column features is valid; the input's key_length column "
            + "is not used (setKeyLengthCol(\"key_length\") uses it)", ClassifierSchema.keyLengthNote(stage, schema));
        assertEquals("keyLengthCol is empty: every token of column features is valid",
            ClassifierSchema.keyLengthNote(stage, new StructType().add("features", ClassifierData.MATRIX)));
        assertEquals("valid tokens per row of column features from column key_length (keyLengthCol)",
            ClassifierSchema.keyLengthNote(stage.setKeyLengthCol("key_length"), schema));
    }

    /** rawPrediction values by row (rows ordered by their features' text, which is unique here). */
    private static List<String> collectRaw(Dataset<Row> transformed) {
        return transformed.selectExpr("cast(features as string) as f", "cast(rawPrediction as string) as r")
            .orderBy("f").collectAsList().stream().map(r -> r.getString(0) + " " + r.getString(1)).toList();
    }
}
