package io.sparkattention.ml.classification;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.ml.training.Trainer;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.tuning.CrossValidator;
import org.apache.spark.ml.tuning.CrossValidatorModel;
import org.apache.spark.ml.tuning.ParamGridBuilder;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BertClassifier} as an MLlib stage: after {@code HuggingFaceTokenizer} in a Pipeline,
 * tuned by CrossValidator, saved and loaded (the model, alone and in a pipeline, predicting the
 * same bits; the estimator with its encoder), its summary and {@code evaluate}, its fine-tuned
 * encoder as a {@link BertEncoderModel}, and bad rows refused before any step naming the row and
 * column. The encoder is a small random one over MiniLM's vocabulary (30,522 ids), so the
 * bundled tokenizer feeds it.
 */
class BertClassifierMLlibTest {

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    private static final String[] TEXTS = {"The cat sat on the mat.", "Stocks fell sharply today.",
        "A dog barked at the cat.", "The market rallied after the news.", "Kittens love warm blankets.",
        "Bonds and shares slipped.", "My puppy chews slippers.", "Investors sold their shares.",
        "The hamster ran in its wheel.", "Interest rates rose again."};

    /** A random encoder: 2 layers, E = 16, 2 heads, MiniLM's 30,522 ids, 64 positions. */
    static BertEncoder randomEncoder(int vocab) {
        BertConfig config = new BertConfig(2, 16, 2, 32, 64, vocab, 2, 1e-12f);
        SplittableRandom random = new SplittableRandom(3);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(config).entrySet()) {
            long size = 1;
            for (long s : e.getValue()) {
                size *= s;
            }
            boolean norm = e.getKey().contains("LayerNorm.weight");
            float[] t = new float[(int) size];
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) ((norm ? 1 : 0) + random.nextGaussian() * (norm ? 0.05 : 0.2));
            }
            tensors.put(e.getKey(), t);
        }
        return new BertEncoder(new BertWeights(config, tensors));
    }

    private Dataset<Row> texts() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < TEXTS.length; i++) {
            rows.add(RowFactory.create(TEXTS[i], (double) (i % 2)));
        }
        return spark.createDataFrame(rows, new StructType().add("text", DataTypes.StringType)
            .add("label", DataTypes.DoubleType));
    }

    private static BertClassifier classifier() {
        return new BertClassifier().setEncoder(new BertEncoderModel(randomEncoder(30522))).setTrainableLayers(1)
            .setStepSize(1e-2).setMaxIter(4).setNumPartitions(2).setSeed(11);
    }

    private static HuggingFaceTokenizer tokenizer() {
        return HuggingFaceTokenizer.pretrained("all-minilm-l6-v2").setInputCol("text").setMaxLength(32);
    }

    @Test
    @DisplayName("in a Pipeline after HuggingFaceTokenizer: fits, predicts, saves and loads with the same bits")
    void pipeline() throws IOException {
        PipelineModel model = new Pipeline().setStages(new PipelineStage[] {tokenizer(), classifier()}).fit(texts());
        BertClassificationModel fitted = (BertClassificationModel) model.stages()[1];
        assertEquals(5, fitted.summary().objectiveHistory().length, "maxIter + 1 losses");
        assertEquals(4, fitted.summary().totalIterations());
        double accuracy = fitted.summary().accuracy();
        assertTrue(accuracy >= 0 && accuracy <= 1);
        Dataset<Row> tokenized = model.stages()[0].transform(texts());
        assertEquals(accuracy, fitted.evaluate(tokenized).accuracy(), 1e-12, "evaluate on the training set");
        List<Row> before = model.transform(texts()).select("rawPrediction", "probability", "prediction")
            .collectAsList();
        String path = dir.resolve("pipeline").toString();
        model.write().save(path);
        List<Row> after = PipelineModel.load(path).transform(texts())
            .select("rawPrediction", "probability", "prediction").collectAsList();
        for (int i = 0; i < before.size(); i++) {
            assertArrayEquals(((Vector) before.get(i).get(0)).toArray(), ((Vector) after.get(i).get(0)).toArray(), 0.0,
                "row " + i + " rawPrediction after save and load");
            assertEquals(before.get(i).getDouble(2), after.get(i).getDouble(2));
        }
        BertClassificationModel loaded = BertClassificationModel.load(saveAlone(fitted));
        assertFalse(loaded.hasSummary(), "a loaded model has no summary");
        assertEquals(fitted.numClasses(), loaded.numClasses());
        assertArrayEquals(fitted.classifierWeight(), loaded.classifierWeight(), 0f);
        assertArrayEquals(fitted.encoder().weights().tensor(BertWeights.WORD_EMBEDDINGS),
            loaded.encoder().weights().tensor(BertWeights.WORD_EMBEDDINGS), 0f);
    }

    @Test
    @DisplayName("tol: the listener hears each iteration once, 0 … totalIterations in order, the last the history's "
        + "final loss at the final weights")
    void tolStopsWithOneLossPerIteration() {
        Dataset<Row> tokenized = tokenizer().transform(texts());
        List<Integer> iterations = new ArrayList<>();
        List<Double> losses = new ArrayList<>();
        // Any step improves the loss by less than 1e9 relative: the run stops before step TOL_WINDOW, the fewest.
        BertClassificationModel fitted = classifier().setMaxIter(15).setTol(1e9).setTrainingListener((i, loss) -> {
            iterations.add(i);
            losses.add(loss);
        }).fit(tokenized);
        int steps = fitted.summary().totalIterations();
        assertEquals(Trainer.TOL_WINDOW, steps);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i <= steps; i++) {
            expected.add(i);
        }
        assertEquals(expected, iterations);
        double[] history = fitted.summary().objectiveHistory();
        assertEquals(steps + 1, history.length);
        for (int i = 0; i <= steps; i++) {
            assertEquals(history[i], losses.get(i), 0.0, "the history's entry " + i + " is the loss heard");
        }
    }

    private String saveAlone(BertClassificationModel model) throws IOException {
        String path = dir.resolve("model").toString();
        model.write().save(path);
        return path;
    }

    @Test
    @DisplayName("transform encodes each task's rows in stacked groups: in any partitioning a row gets predictRaw's "
        + "bits; null ids give null columns; a bad id names its row")
    void transformInGroups() {
        Dataset<Row> ids = tokenizer().transform(texts()).select("input_ids", "label");
        BertClassificationModel fitted = classifier().setMaxIter(1).fit(ids);
        Dataset<Row> withNull = ids.union(spark.createDataFrame(List.of(RowFactory.create(null, 0.0)), ids.schema()));
        for (int partitions : new int[] {1, 3}) {
            List<Row> rows = fitted.transform(withNull.repartition(partitions))
                .select("input_ids", "rawPrediction", "probability", "prediction").collectAsList();
            assertEquals(TEXTS.length + 1, rows.size());
            for (Row r : rows) {
                if (r.isNullAt(0)) {
                    assertTrue(r.isNullAt(1) && r.isNullAt(2) && r.isNullAt(3), "null ids, null outputs: " + r);
                    continue;
                }
                int[] row = r.getList(0).stream().mapToInt(o -> (Integer) o).toArray();
                assertArrayEquals(fitted.predictRaw(row).toArray(), ((Vector) r.get(1)).toArray(), 0.0,
                    partitions + " partitions: " + java.util.Arrays.toString(row));
            }
        }
        Dataset<Row> bad = spark.createDataFrame(List.of(RowFactory.create(new int[] {101, 40000, 102}, 0.0)),
            ids.schema());
        Exception e = assertThrows(Exception.class, () -> fitted.transform(bad).collectAsList());
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("row 0: column input_ids: token id 40000 at position 1"),
            messages.toString());
    }

    @Test
    @DisplayName("CrossValidator tunes stepSize over a tokenizer + classifier pipeline")
    void crossValidator() {
        BertClassifier classifier = classifier().setMaxIter(2);
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {tokenizer(), classifier});
        ParamMap[] grid = new ParamGridBuilder().addGrid(classifier.stepSize(), new double[] {1e-3, 1e-2}).build();
        CrossValidatorModel cv = new CrossValidator().setEstimator(pipeline).setEstimatorParamMaps(grid)
            .setEvaluator(new MulticlassClassificationEvaluator().setMetricName("accuracy")).setNumFolds(2)
            .setSeed(5).fit(texts());
        assertEquals(2, cv.avgMetrics().length);
        PipelineModel best = (PipelineModel) cv.bestModel();
        assertTrue(best.stages()[1] instanceof BertClassificationModel);
        assertEquals(TEXTS.length, best.transform(texts()).count());
    }

    @Test
    @DisplayName("the estimator saves and loads with its params and its encoder")
    void estimatorPersistence() throws IOException {
        BertClassifier stage = classifier().setDropout(0.2).setWarmupSteps(3);
        String path = dir.resolve("estimator").toString();
        stage.write().save(path);
        BertClassifier loaded = BertClassifier.load(path);
        assertEquals(stage.uid(), loaded.uid());
        assertEquals(0.2, loaded.getDropout());
        assertEquals(3, loaded.getWarmupSteps());
        assertArrayEquals(stage.getEncoder().encoder().weights().tensor(BertWeights.WORD_EMBEDDINGS),
            loaded.getEncoder().encoder().weights().tensor(BertWeights.WORD_EMBEDDINGS), 0f);
    }

    @Test
    @DisplayName("encoderModel() embeds with the fine-tuned encoder: what a BertEncoderModel of it gives")
    void encoderModel() {
        Dataset<Row> tokenized = tokenizer().transform(texts());
        BertClassificationModel fitted = classifier().fit(tokenized);
        List<Row> a = fitted.encoderModel().transform(tokenized).select("embedding").collectAsList();
        List<Row> b = new BertEncoderModel(fitted.encoder()).transform(tokenized).select("embedding").collectAsList();
        List<Row> before = new BertEncoderModel(randomEncoder(30522)).transform(tokenized).select("embedding")
            .collectAsList();
        for (int i = 0; i < a.size(); i++) {
            assertArrayEquals(((Vector) b.get(i).get(0)).toArray(), ((Vector) a.get(i).get(0)).toArray(), 0.0);
        }
        assertFalse(java.util.Arrays.equals(((Vector) before.get(0).get(0)).toArray(),
            ((Vector) a.get(0).get(0)).toArray()), "fine-tuning changed the encoder");
    }

    @Test
    @DisplayName("an id outside the vocabulary, too many tokens or a bad label fails fit naming the row and column")
    void badRows() {
        BertClassifier stage = new BertClassifier().setEncoder(new BertEncoderModel(randomEncoder(50))).setMaxIter(1)
            .setNumClasses(2);
        int[] tooLong = new int[65];
        java.util.Arrays.fill(tooLong, 5);
        Object[][] cases = {{new int[] {1, 50, 2}, 0.0, "row 2: column input_ids: token id 50 at position 1"},
            {tooLong, 0.0, "row 2: column input_ids has 65 token ids, more than the model's 64 positions"},
            {new int[] {1, 2}, 2.0, "row 2: column label is 2.0, outside [0, 2)"}};
        for (Object[] c : cases) {
            List<Row> rows = List.of(RowFactory.create(new int[] {1, 3, 2}, 0.0), RowFactory.create(c[0], c[1]));
            Dataset<Row> df = spark.createDataFrame(rows, new StructType()
                .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType)).add("label", DataTypes.DoubleType));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> stage.fit(df));
            assertTrue(e.getMessage().startsWith((String) c[2]), e.getMessage());
        }
    }
}
