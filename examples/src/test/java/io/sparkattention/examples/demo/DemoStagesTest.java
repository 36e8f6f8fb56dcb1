package io.sparkattention.examples.demo;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The demo's own stages: token lookup, attention pooling, the held-out split and the mean-vector feature. */
class DemoStagesTest {

    private static final StructType TOKENS = new StructType().add("id", DataTypes.IntegerType)
        .add("tokens", DataTypes.createArrayType(DataTypes.StringType));
    private final SparkSession spark = SparkTestSession.get();

    @Test
    @DisplayName("TokenEmbedding looks every token up (L×d), normalises on request, and survives a Pipeline round trip")
    void tokenEmbedding(@TempDir Path dir) throws IOException {
        Dataset<Row> df = spark.createDataFrame(List.of(
            RowFactory.create(0, new String[] {"a", "b", "a", "c"}),
            RowFactory.create(1, new String[] {"b", "c"}),
            RowFactory.create(2, null)), TOKENS);
        PipelineModel model = new Pipeline().setStages(new PipelineStage[] {
            new TokenEmbedding().setVectorSize(8).setNormalize(true).setSeed(7)}).fit(df);
        TokenEmbeddingModel embedding = (TokenEmbeddingModel) model.stages()[0];
        assertEquals(3, embedding.vocabularySize());
        assertEquals(8, embedding.dimension());

        List<Row> rows = model.transform(df).orderBy("id").collectAsList();
        List<List<Float>> first = rows.get(0).getList(2);
        assertEquals(4, first.size());
        assertEquals(list(first.get(0)), list(first.get(2)), "the same token, the same vector");
        double norm = 0;
        for (Object x : list(first.get(1))) {
            norm += Math.pow(((Number) x).doubleValue(), 2);
        }
        assertEquals(Math.sqrt(8), Math.sqrt(norm), 1e-5, "normalised to sqrt(d)");
        assertNull(rows.get(2).get(2));

        model.write().overwrite().save(dir.resolve("m").toString());
        List<Row> again = PipelineModel.load(dir.resolve("m").toString()).transform(df).orderBy("id").collectAsList();
        assertEquals(rows.toString(), again.toString());

        Dataset<Row> unknown = spark.createDataFrame(List.of(RowFactory.create(3, new String[] {"zzz"})), TOKENS);
        List<Object> zero = list(((List<?>) embedding.transform(unknown).first().getList(2)).get(0));
        assertEquals(8, zero.size());
        zero.forEach(x -> assertEquals(0f, ((Number) x).floatValue(), "an unknown token gets the zero vector"));
    }

    @Test
    @DisplayName("AttentionPooling weighs each token by the attention it receives (column means)")
    void attentionPooling() {
        StructType schema = new StructType()
            .add("h", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
            .add("w", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)));
        float[][] h = {{1, 0}, {0, 2}, {4, 4}};
        float[][] w = {{1, 0, 0}, {0.5f, 0.5f, 0}, {0, 0, 1}};  // received: [0.5, 1/6, 1/3]
        Row out = new AttentionPooling().setInputCol("h").setWeightsCol("w").setOutputCol("p")
            .transform(spark.createDataFrame(List.of(RowFactory.create(h, w)), schema)).first();
        List<?> pooled = out.getList(2);
        assertArrayEquals(new float[] {0.5f + 4f / 3, 2f / 6 + 4f / 3},
            new float[] {((Number) pooled.get(0)).floatValue(), ((Number) pooled.get(1)).floatValue()}, 1e-6f);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new AttentionPooling().setInputCol("h").setWeightsCol("nope").transformSchema(schema));
        assertEquals("column nope (weightsCol) does not exist", e.getMessage());
    }

    @Test
    @DisplayName("BookSplit holds out every k-th block of n consecutive passages, the same as a column and as a number")
    void bookSplit() {
        BookSplit split = new BookSplit(3, 4);
        StructType schema = new StructType().add("book", DataTypes.StringType).add("passage", DataTypes.IntegerType);
        List<Row> passages = new java.util.ArrayList<>();
        for (int p = 0; p < 30; p++) {
            passages.add(RowFactory.create("b", p));
        }
        List<Row> heldOut = split.heldOut(spark.createDataFrame(passages, schema)).orderBy("passage").collectAsList();
        List<Integer> numbers = heldOut.stream().map(r -> r.getInt(1)).collect(java.util.stream.Collectors.toList());
        // Blocks [0,3) [3,6) [6,9) [9,12) ...: the 4th of every 4 is held out.
        assertEquals(List.of(9, 10, 11, 21, 22, 23), numbers);
        for (int p = 0; p < 30; p++) {
            assertEquals(numbers.contains(p), split.heldOut(p), "passage " + p);
        }
        assertEquals(24, split.training(spark.createDataFrame(passages, schema)).count());
        assertEquals("per book, blocks of 3 consecutive passages; every 4th block held out", split.describe());
        assertEquals("per book, blocks of 1 consecutive passages; every 2nd block held out", new BookSplit(1, 2).describe());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BookSplit(5, 1));
        assertEquals("holdoutEvery must be >= 2, got 1", e.getMessage());
    }

    @Test
    @DisplayName("the mean-vector baseline's feature is the mean of a sequence's rows, in double")
    void meanRow() {
        StructType schema = new StructType()
            .add("x", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)));
        float[][] x = {{1, 2}, {3, -4}, {0.5f, 0}};
        Row out = spark.createDataFrame(List.of(RowFactory.create((Object) x)), schema)
            .select(Baselines.meanRow(org.apache.spark.sql.functions.col("x"))).first();
        assertArrayEquals(new double[] {1.5, -2.0 / 3}, ((org.apache.spark.ml.linalg.Vector) out.get(0)).toArray(), 1e-12);
    }

    private static List<Object> list(Object seq) {
        return seq instanceof List ? (List<Object>) seq
            : scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<Object>) seq);
    }
}
