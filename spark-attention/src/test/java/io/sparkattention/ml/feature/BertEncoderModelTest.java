package io.sparkattention.ml.feature;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.classification.LogisticRegressionModel;
import org.apache.spark.ml.clustering.KMeans;
import org.apache.spark.ml.clustering.KMeansModel;
import org.apache.spark.ml.feature.BucketedRandomProjectionLSH;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The encoder stage: the real model's numbers, batch invariance, MLlib on its vectors, persistence, bad input. */
class BertEncoderModelTest {

    private static final StructType IDS = new StructType().add("id", DataTypes.IntegerType)
        .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType));

    private final SparkSession spark = SparkTestSession.get();

    private Dataset<Row> ids(List<int[]> sequences) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < sequences.size(); i++) {
            int[] s = sequences.get(i);
            rows.add(RowFactory.create(i, s == null ? null : java.util.Arrays.stream(s).boxed().toList()));
        }
        return spark.createDataFrame(rows, IDS);
    }

    /** Random sequences of lengths 0 to 40 over a vocabulary, seeded. */
    private static List<int[]> randomSequences(int n, int vocab, long seed) {
        Random rnd = new Random(seed);
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int[] s = new int[rnd.nextInt(41)];
            for (int j = 0; j < s.length; j++) {
                s[j] = rnd.nextInt(vocab);
            }
            out.add(s);
        }
        return out;
    }

    @Test
    @DisplayName("all-MiniLM-L6-v2 through the stage: states within 1e-5 relative per token, embeddings within 1e-5")
    void realModelMatchesTheReference() {
        List<MiniLmReference.Case> cases = MiniLmReference.cases();
        List<int[]> sequences = cases.stream().map(MiniLmReference.Case::inputIds).toList();
        BertEncoderModel model = BertEncoderModel.pretrained("all-minilm-l6-v2").setStatesCol("last_hidden_state");
        List<Row> rows = model.transform(ids(sequences).repartition(3)).orderBy("id").collectAsList();
        for (int c = 0; c < cases.size(); c++) {
            Row row = rows.get(c);
            double[] embedding = ((Vector) row.getAs("embedding")).toArray();
            double[] expected = cases.get(c).embedding();
            assertEquals(384, embedding.length);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], embedding[i], 1e-5, cases.get(c).text() + " component " + i);
            }
            float[] states = Matrices.flatten(row.getList(row.fieldIndex("last_hidden_state")));
            double[][] reference = cases.get(c).lastHiddenState();
            assertEquals(reference.length * 384, states.length);
            for (int t = 0; t < reference.length; t++) {
                double err = 0, norm = 0;
                for (int i = 0; i < 384; i++) {
                    double d = states[t * 384 + i] - reference[t][i];
                    err += d * d;
                    norm += reference[t][i] * reference[t][i];
                }
                assertTrue(Math.sqrt(err / norm) <= 1e-5, cases.get(c).text() + " token " + t + ": relative error "
                    + Math.sqrt(err / norm));
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"a, '', 2", "b, bert., 4", "c, 0.auto_model., 4"})
    @DisplayName("random BERTs through fromOnnx and fromSafeTensors: embeddings within 1e-5 of their float64 reference")
    void loadsOnnxAndSafeTensors(String name, String prefix, int heads) throws Exception {
        String base = "/fixtures/encoder/random_bert_" + name;
        List<int[]> sequences = new ArrayList<>();
        List<double[]> expected = new ArrayList<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String line : Files.readAllLines(resource(base + ".jsonl"))) {
            com.fasterxml.jackson.databind.JsonNode n = json.readTree(line);
            int[] ids = new int[n.get("input_ids").size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = n.get("input_ids").get(i).asInt();
            }
            double[] embedding = new double[n.get("embedding").size()];
            for (int i = 0; i < embedding.length; i++) {
                embedding[i] = n.get("embedding").get(i).asDouble();
            }
            sequences.add(ids);
            expected.add(embedding);
        }
        for (BertEncoderModel model : List.of(BertEncoderModel.fromOnnx(resource(base + ".onnx").toString(), 0),
            BertEncoderModel.fromSafeTensors(resource(base + ".safetensors").toString(), prefix, heads))) {
            List<Row> rows = model.transform(ids(sequences)).orderBy("id").collectAsList();
            for (int r = 0; r < rows.size(); r++) {
                double[] got = ((Vector) rows.get(r).getAs("embedding")).toArray();
                for (int i = 0; i < got.length; i++) {
                    assertEquals(expected.get(r)[i], got[i], 1e-5, name + " sequence " + r + " component " + i);
                }
            }
        }
    }

    private static Path resource(String name) throws java.net.URISyntaxException {
        return Path.of(BertEncoderModelTest.class.getResource(name).toURI());
    }

    @Test
    @DisplayName("batch invariance: bitwise equal over 1, 3 and 7 partitions, shuffled neighbours, and the raw encoder")
    void outputsDoNotDependOnTheBatch() {
        BertEncoder encoder = RandomBert.encoder(2, 32, 4, 100, 7);
        BertEncoderModel model = new BertEncoderModel(encoder).setStatesCol("states").setStatesLayout("flat");
        List<int[]> sequences = randomSequences(60, 100, 11);
        Dataset<Row> df = ids(sequences);
        Map<Integer, Row> single = byId(model.transform(df.repartition(1)).collectAsList());
        for (Dataset<Row> layout : List.of(df.repartition(3), df.repartition(7),
            df.orderBy(functions.rand(5)).repartition(7), df.orderBy(functions.rand(9)).coalesce(2))) {
            Map<Integer, Row> other = byId(model.transform(layout).collectAsList());
            for (int id = 0; id < sequences.size(); id++) {
                assertArrayEquals(((Vector) single.get(id).getAs("embedding")).toArray(),
                    ((Vector) other.get(id).getAs("embedding")).toArray(), "row " + id);
                assertEquals(single.get(id).getList(3), other.get(id).getList(3), "row " + id);
            }
        }
        for (int id = 0; id < sequences.size(); id++) {
            float[] states = encoder.forward(sequences.get(id));
            List<Float> got = single.get(id).getList(3);
            float[] stageStates = new float[got.size()];
            for (int i = 0; i < stageStates.length; i++) {
                stageStates[i] = got.get(i);
            }
            assertArrayEquals(states, stageStates, "row " + id);
            float[] pooled = Pooling.MEAN.embed(states, sequences.get(id).length, 32, true);
            double[] embedding = ((Vector) single.get(id).getAs("embedding")).toArray();
            for (int i = 0; i < pooled.length; i++) {
                assertEquals(pooled[i], (float) embedding[i], "row " + id);
            }
        }
    }

    private static Map<Integer, Row> byId(List<Row> rows) {
        Map<Integer, Row> out = new HashMap<>();
        rows.forEach(r -> out.put(r.getInt(0), r));
        return out;
    }

    @Test
    @DisplayName("the embedding is an MLlib vector: LogisticRegression, KMeans and LSH fit on it")
    void mllibTakesTheEmbedding() {
        BertEncoderModel model = new BertEncoderModel(RandomBert.encoder(1, 16, 2, 60, 3)).setOutputCol("features");
        Random rnd = new Random(1);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            int label = i % 2;
            List<Integer> s = new ArrayList<>();
            for (int j = 0; j < 4 + rnd.nextInt(8); j++) {
                s.add(label * 30 + rnd.nextInt(30));
            }
            rows.add(RowFactory.create(i, s, (double) label));
        }
        Dataset<Row> df = spark.createDataFrame(rows, IDS.add("label", DataTypes.DoubleType));
        Dataset<Row> features = model.transform(df).cache();
        LogisticRegressionModel lr = new LogisticRegression().setMaxIter(50).fit(features);
        double accuracy = lr.transform(features).filter("prediction = label").count() / 80.0;
        assertTrue(accuracy >= 0.9, "training accuracy " + accuracy);
        KMeansModel kmeans = new KMeans().setK(2).setSeed(1).fit(features);
        assertEquals(2, kmeans.clusterCenters().length);
        assertEquals(16, kmeans.clusterCenters()[0].size());
        long pairs = new BucketedRandomProjectionLSH().setBucketLength(1).setInputCol("features").setOutputCol("hash")
            .fit(features).approxSimilarityJoin(features, features, 0.5).count();
        assertTrue(pairs >= 80);
        features.unpersist();
    }

    @Test
    @DisplayName("tokenizer → encoder → LogisticRegression saves as a self-contained pipeline and loads back equal")
    void pipelineSavesAndLoads(@TempDir Path dir) throws Exception {
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("text", DataTypes.StringType)
            .add("label", DataTypes.DoubleType);
        String[] words = {"tea", "cake", "ball", "dance", "letter", "rain", "walk", "garden"};
        Random rnd = new Random(2);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int label = i % 2;
            StringBuilder text = new StringBuilder();
            for (int j = 0; j < 3 + rnd.nextInt(5); j++) {
                text.append(words[label * 4 + rnd.nextInt(4)]).append(' ');
            }
            rows.add(RowFactory.create(i, text.toString().trim(), (double) label));
        }
        Dataset<Row> df = spark.createDataFrame(rows, schema);
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
            HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson()),
            new BertEncoderModel(RandomBert.encoder(1, 16, 2, RandomBert.MINILM_VOCAB, 4)).setOutputCol("features")
                .setNormalize(false).setPooling("cls"),
            new LogisticRegression().setMaxIter(20)});
        PipelineModel fitted = pipeline.fit(df);
        String saved = dir.resolve("pipeline").toString();
        fitted.write().save(saved);
        try (var files = Files.walk(dir)) {
            assertEquals(1, files.filter(p -> p.getFileName().toString().equals("encoder.safetensors")).count());
        }
        PipelineModel loaded = PipelineModel.load(saved);
        BertEncoderModel encoder = (BertEncoderModel) loaded.stages()[1];
        assertEquals("cls", encoder.getPooling());
        assertEquals(false, encoder.getNormalize());
        List<Row> before = fitted.transform(df).orderBy("id").select("input_ids", "features", "prediction")
            .collectAsList();
        List<Row> after = loaded.transform(df).orderBy("id").select("input_ids", "features", "prediction")
            .collectAsList();
        assertEquals(before, after);

        // A pipeline saved when the class was io.sparkattention.ml.BertEncoderModel loads as this class.
        Path metadata;
        try (var files = Files.walk(dir.resolve("pipeline"))) {
            metadata = files.filter(p -> p.toString().contains("bertEncoder") && p.getFileName().toString()
                .startsWith("part-")).findFirst().orElseThrow();
        }
        String json = Files.readString(metadata);
        assertTrue(json.contains("\"class\":\"io.sparkattention.ml.feature.BertEncoderModel\""), json);
        Files.writeString(metadata, json.replace("io.sparkattention.ml.feature.BertEncoderModel",
            "io.sparkattention.ml.BertEncoderModel"));
        Files.deleteIfExists(metadata.resolveSibling("." + metadata.getFileName() + ".crc"));
        PipelineModel old = PipelineModel.load(saved);
        assertEquals(BertEncoderModel.class, old.stages()[1].getClass());
        assertEquals(before, old.transform(df).orderBy("id").select("input_ids", "features", "prediction")
            .collectAsList());
        assertEquals("cls", BertEncoderModel.load(metadata.getParent().getParent().toString()).getPooling());
        String foreign = assertThrows(IllegalArgumentException.class,
            () -> BertEncoderModel.load(dir.resolve("pipeline").resolve("stages").toFile().listFiles(
                f -> f.getName().contains("hfTokenizer"))[0].toString())).getMessage();
        assertTrue(foreign.contains("holds a " + HuggingFaceTokenizer.class.getName() + ", not a "
            + BertEncoderModel.class.getName()), foreign);
    }

    @Test
    @DisplayName("null ids follow handleInvalid; an id outside the vocabulary names row and position; [] pools to 0")
    void badRowsAreNamed() {
        BertEncoderModel model = new BertEncoderModel(RandomBert.encoder(1, 8, 2, 20, 5));
        List<int[]> sequences = new ArrayList<>();
        sequences.add(new int[] {1, 2});
        sequences.add(null);
        sequences.add(new int[0]);
        Dataset<Row> df = ids(sequences).repartition(1).sortWithinPartitions("id");
        Exception e = assertThrows(Exception.class, () -> model.transform(df).collectAsList());
        String message = RootCause.message(e);
        assertTrue(message.contains("row 1") && message.contains("column input_ids is null"), message);
        assertEquals(2, model.setHandleInvalid("skip").transform(df).count());
        List<Row> kept = model.setHandleInvalid("keep").transform(df).orderBy("id").collectAsList();
        assertNull(kept.get(1).get(2));
        assertArrayEquals(new double[8], ((Vector) kept.get(2).get(2)).toArray());

        Dataset<Row> outside = ids(List.of(new int[] {1, 2}, new int[] {3, 20, 4})).repartition(1)
            .sortWithinPartitions("id");
        String bad = RootCause.message(assertThrows(Exception.class, () -> model.transform(outside).collectAsList()));
        assertTrue(bad.contains("row 1") && bad.contains("token id 20 at position 1"), bad);
    }

    @Test
    @DisplayName("states nested or flat with their width, per-head attention H×L×L whose rows sum to 1")
    void statesAndAttention() {
        BertEncoder encoder = RandomBert.encoder(2, 16, 4, 50, 8);
        List<int[]> sequences = List.of(new int[] {1, 5, 7, 2}, new int[] {3});
        BertEncoderModel model = new BertEncoderModel(encoder).setOutputCol("").setStatesCol("states")
            .setAttentionCol("attention").setAttentionLayer(1);
        Dataset<Row> nested = model.transform(ids(sequences));
        assertEquals(MatrixType.OUTPUT, nested.schema().apply("states").dataType());
        Row first = nested.orderBy("id").first();
        assertArrayEquals(encoder.forward(sequences.get(0)), Matrices.flatten(first.getList(2)));
        float[] heads = Matrices.flatten3(first.getList(3));
        assertEquals(4 * 4 * 4, heads.length);
        for (int row = 0; row < 4 * 4; row++) {
            double sum = 0;
            for (int key = 0; key < 4; key++) {
                sum += heads[row * 4 + key];
            }
            assertEquals(1, sum, 1e-5, "head " + row / 4 + " query " + row % 4);
        }
        Dataset<Row> flat = model.setStatesLayout("flat").transform(ids(sequences));
        assertEquals(16, SequenceLayout.width(flat.schema().apply("states")));
        List<Float> values = flat.orderBy("id").first().getList(2);
        assertEquals(4 * 16, values.size());
    }

    @Test
    @DisplayName("the shipped encoder survives Spark's Kryo serializer (which cannot rebuild records) and Java's")
    void shippedEncoderSurvivesKryo() {
        BertEncoder encoder = RandomBert.encoder(1, 8, 2, 20, 6);
        int[] ids = {1, 4, 9, 2};
        org.apache.spark.serializer.SerializerInstance kryo = new org.apache.spark.serializer.KryoSerializer(
            new org.apache.spark.SparkConf()).newInstance();
        @SuppressWarnings("unchecked")
        scala.reflect.ClassTag<Shipped<BertEncoder>> tag = (scala.reflect.ClassTag<Shipped<BertEncoder>>) (Object)
            scala.reflect.ClassTag$.MODULE$.apply(Shipped.class);
        Shipped<BertEncoder> back = kryo.deserialize(kryo.serialize(Shipped.of(encoder), tag), tag);
        assertArrayEquals(encoder.forward(ids), back.get().forward(ids));
        org.apache.spark.serializer.SerializerInstance java = new org.apache.spark.serializer.JavaSerializer(
            new org.apache.spark.SparkConf()).newInstance();
        Shipped<BertEncoder> viaJava = java.deserialize(java.serialize(Shipped.of(encoder), tag), tag);
        assertArrayEquals(encoder.forward(ids), viaJava.get().forward(ids));
    }

    @Test
    @DisplayName("schema errors name the column or param")
    void schemaErrors() {
        BertEncoderModel model = new BertEncoderModel(RandomBert.encoder(1, 8, 2, 20, 5));
        StructType texts = new StructType().add("input_ids", DataTypes.StringType);
        assertEquals("column input_ids (inputCol): expected array<int> or array<bigint> token ids, found string",
            assertThrows(IllegalArgumentException.class, () -> model.transformSchema(texts)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> model.setInputCol("ids").transformSchema(IDS))
            .getMessage().startsWith("column ids (inputCol) does not exist"));
        model.setInputCol("input_ids");
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> model.setAttentionCol("a").setAttentionLayer(1).transformSchema(IDS)).getMessage()
            .startsWith("attentionLayer 1 is outside [0, 1)"));
        assertTrue(assertThrows(IllegalArgumentException.class,
            () -> model.setAttentionCol("").setOutputCol("id").transformSchema(IDS)).getMessage()
            .startsWith("output column id already exists"));
        assertTrue(assertThrows(IllegalStateException.class, () -> new BertEncoderModel().transformSchema(IDS))
            .getMessage().contains("has no encoder"));
    }
}
