package io.sparkattention.ml.feature;

import io.sparkattention.io.BundledModels;
import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The encoder stage's batches: bounded by rows and tokens, rows back in their order, and every
 * text's outputs bitwise what the encoder gives it alone. The projections stack rows on whichever
 * GEMM path this JVM runs: the default build runs this class on the JVM's choice (the Vector API
 * kernel on AVX-512) and again with {@code -Dsparkattention.gemm=blas} (the surefire execution
 * {@code blas-projections}), so a batch that changes one bit fails on either path.
 */
class EncoderBatchesTest {

    private static final StructType IDS = new StructType().add("id", DataTypes.IntegerType)
        .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType));

    private final SparkSession spark = SparkTestSession.get();

    @Test
    @DisplayName("the JVM's projections stack rows (the forced path when sparkattention.gemm is set)")
    void projectionsStackOnThisPath() {
        LinearWeight w = LinearWeight.of(new float[6], 3, 2, null);
        String forced = System.getProperty("sparkattention.gemm", "auto");
        if (!forced.equals("auto")) {
            assertTrue(w.kernel().name().startsWith(forced), forced + " forced, running " + w.kernel().name());
        }
        if (forced.equals("blas")) {
            Assumptions.assumeTrue(w.rowsIndependent(), "this BLAS (OPENBLAS_CORETYPE="
                + Blas.coreType() + ") does not claim independent rows, so the encoder runs "
                + "one sequence at a time on it; OpenBlasCoreTypesTest checks both OpenBLAS kernel families");
        }
        assertTrue(w.rowsIndependent(), w.kernel().name() + " computes rows alone: nothing would be stacked");
    }

    @Test
    @DisplayName("batches: consecutive rows, at most batchRows rows and batchTokens tokens, a longer row alone")
    void batchesAreBounded() {
        EncoderBatches batches = new EncoderBatches(3, 10);
        int[] lengths = {4, 4, 4, 2, 2, 2, 2, 11, 0, 0, 0, 0, 9, 1, 1};
        List<int[]> split = batches.split(lengths);
        List<String> shown = new ArrayList<>();
        split.forEach(b -> shown.add(Arrays.toString(b)));
        assertEquals(List.of("[0, 1]", "[2, 3, 4]", "[5, 6]", "[7]", "[8, 9, 10]", "[11, 12, 13]", "[14]"), shown);
        assertEquals(List.of(), batches.split(new int[0]));
        assertThrows(IllegalArgumentException.class, () -> new EncoderBatches(0, 10));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new EncoderBatches(2, 0)).getMessage()
            .contains("batchTokens"));
    }

    @Test
    @DisplayName("EncoderBatches.encode gives each sequence, sorted or not, the bits it gets alone")
    void encodeEqualsAlone() throws Exception {
        BertEncoder minilm = BundledModels.encoder("all-minilm-l6-v2");
        int[][] batch = {randomIds(40, 30522, 1), randomIds(2, 30522, 2), randomIds(130, 30522, 3),
            new int[0], randomIds(7, 30522, 4), randomIds(129, 30522, 5)};
        float[][] states = EncoderBatches.encode(minilm, batch);
        for (int r = 0; r < batch.length; r++) {
            assertArrayEquals(minilm.forward(batch[r]), states[r], "sequence " + r + " of " + batch[r].length);
        }
    }

    @Test
    @DisplayName("encoders of other widths and heads on one thread: each batch still gets every text's own bits")
    void encodersOfOtherShapesShareAThread() {
        // 32 wide, 4 heads over 600 tokens, then 8 wide, 2 heads over 1,800: the wide batch's context
        // buffer holds the narrow one's, its log-sum-exp buffer does not.
        BertEncoder wide = RandomBert.encoder(1, 32, 4, 100, 2);
        BertEncoder narrow = RandomBert.encoder(1, 8, 2, 100, 1);
        int[][] few = new int[10][];
        int[][] many = new int[30][];
        for (int i = 0; i < many.length; i++) {
            many[i] = randomIds(60, 100, i);
        }
        System.arraycopy(many, 0, few, 0, few.length);
        EncoderBatches.encode(wide, few);
        float[][] states = EncoderBatches.encode(narrow, many);
        for (int i = 0; i < many.length; i++) {
            assertArrayEquals(narrow.forward(many[i]), states[i], "sequence " + i);
        }
    }

    @Test
    @DisplayName("the stage: rows in input order, bitwise equal to the encoder alone, over batch bounds and partitions")
    void stageOutputsEqualTheEncoderAlone() {
        BertEncoder encoder = RandomBert.encoder(2, 32, 4, 100, 7);
        List<int[]> sequences = new ArrayList<>();
        Random rnd = new Random(3);
        for (int i = 0; i < 90; i++) {
            sequences.add(i % 17 == 5 ? null : randomIds(rnd.nextInt(65), 100, 100 + i));
        }
        Dataset<Row> df = ids(sequences);
        for (int[] bounds : new int[][] {{1, 1}, {5, 60}, {64, 2048}, {1000, 100_000}}) {
            BertEncoderModel model = new BertEncoderModel(encoder).setStatesCol("states").setStatesLayout("flat")
                .setHandleInvalid("keep").setBatchRows(bounds[0]).setBatchTokens(bounds[1]);
            for (Dataset<Row> layout : List.of(df.coalesce(1), df.repartition(3),
                df.orderBy(functions.rand(5)).repartition(2))) {
                List<Row> rows = model.transform(layout).collectAsList();
                List<Row> input = layout.collectAsList();
                assertEquals(input.size(), rows.size());
                for (int i = 0; i < rows.size(); i++) {
                    Row row = rows.get(i);
                    assertEquals(input.get(i).getInt(0), row.getInt(0), "row order, bounds " + Arrays.toString(bounds));
                    int[] ids = sequences.get(row.getInt(0));
                    String what = "row " + row.getInt(0) + ", bounds " + Arrays.toString(bounds);
                    if (ids == null) {
                        assertNull(row.get(2), what);
                        assertNull(row.get(3), what);
                        continue;
                    }
                    float[] alone = encoder.forward(ids);
                    assertArrayEquals(alone, floats(row.getList(3)), what);
                    float[] pooled = Pooling.MEAN.embed(alone, ids.length, 32, true);
                    double[] embedding = ((Vector) row.get(2)).toArray();
                    assertEquals(pooled.length, embedding.length, what);
                    for (int j = 0; j < pooled.length; j++) {
                        assertEquals(pooled[j], (float) embedding[j], what);
                    }
                }
            }
        }
    }

    @Test
    @DisplayName("MiniLM through the stage in batches: every text's state bitwise its own, short and long (> 128)")
    void miniLmStageEqualsAlone() throws Exception {
        BertEncoder minilm = BundledModels.encoder("all-minilm-l6-v2");
        List<int[]> sequences = new ArrayList<>();
        int[] lengths = {2, 57, 12, 130, 3, 128, 129, 33, 2, 90};
        for (int i = 0; i < lengths.length; i++) {
            sequences.add(randomIds(lengths[i], 30522, 50 + i));
        }
        BertEncoderModel model = new BertEncoderModel(minilm).setStatesCol("states").setStatesLayout("flat")
            .setBatchRows(4).setBatchTokens(300);
        List<Row> rows = model.transform(ids(sequences).coalesce(1)).collectAsList();
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(i, rows.get(i).getInt(0));
            assertArrayEquals(minilm.forward(sequences.get(i)), floats(rows.get(i).getList(3)), "text " + i);
        }
    }

    @Test
    @DisplayName("a bad row in a batch is named by position in its partition, or by rowIdCol")
    void badRowInABatchIsNamed() {
        BertEncoderModel model = new BertEncoderModel(RandomBert.encoder(1, 8, 2, 20, 5)).setBatchRows(8);
        List<int[]> sequences = List.of(new int[] {1, 2}, new int[] {3, 4}, new int[] {3, 4, 5}, new int[65]);
        String tooLong = io.sparkattention.testing.RootCause.message(assertThrows(Exception.class,
            () -> model.transform(ids(sequences).coalesce(1)).collectAsList()));
        assertTrue(tooLong.contains("row 3: column input_ids has 65 token ids, more than the model's 64 positions"),
            tooLong);
        List<int[]> outside = List.of(new int[] {1, 2}, new int[] {3, 20, 4});
        String named = io.sparkattention.testing.RootCause.message(assertThrows(Exception.class,
            () -> model.setRowIdCol("id").transform(ids(outside).coalesce(1)).collectAsList()));
        assertTrue(named.startsWith("row 1: column input_ids: token id 20 at position 1 is outside the model's vocabulary [0, 20)"), named);
    }

    @Test
    @DisplayName("a stream runs row by row and gives the batched path's rows: tokenizer -> encoder")
    void aStreamGivesTheBatchedRows(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path input = java.nio.file.Files.createDirectories(dir.resolve("in"));
        java.nio.file.Files.writeString(input.resolve("part-0.json"), "{\"id\":0,\"text\":\"Emma Woodhouse, handsome, "
            + "clever, and rich\"}\n{\"id\":1,\"text\":\"\"}\n{\"id\":2,\"text\":null}\n{\"id\":3,\"text\":\"tea\"}\n");
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("text", DataTypes.StringType);
        org.apache.spark.ml.PipelineModel stages = new org.apache.spark.ml.PipelineModel("encode",
            new org.apache.spark.ml.Transformer[] {
                HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson()).setHandleInvalid("keep"),
                new BertEncoderModel(RandomBert.encoder(1, 16, 2, RandomBert.MINILM_VOCAB, 9)).setHandleInvalid("keep")
                    .setStatesCol("states").setBatchRows(2)});
        Dataset<Row> stream = spark.readStream().schema(schema).json(input.toString());
        org.apache.spark.sql.streaming.StreamingQuery query = stages.transform(stream).writeStream().format("memory")
            .queryName("encoder_stream").outputMode("append")
            .option("checkpointLocation", dir.resolve("checkpoint").toString()).start();
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        List<Row> streamed = spark.table("encoder_stream").orderBy("id").collectAsList();
        List<Row> batch = stages.transform(spark.read().schema(schema).json(input.toString())).orderBy("id")
            .collectAsList();
        assertEquals(4, streamed.size());
        assertEquals(batch, streamed);
        assertNull(streamed.get(2).getAs("embedding"));
    }

    private Dataset<Row> ids(List<int[]> sequences) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < sequences.size(); i++) {
            int[] s = sequences.get(i);
            rows.add(RowFactory.create(i, s == null ? null : Arrays.stream(s).boxed().toList()));
        }
        return spark.createDataFrame(rows, IDS);
    }

    private static int[] randomIds(int length, int vocab, long seed) {
        Random r = new Random(seed);
        int[] ids = new int[length];
        for (int i = 0; i < length; i++) {
            ids[i] = r.nextInt(vocab);
        }
        return ids;
    }

    private static float[] floats(List<Float> values) {
        float[] out = new float[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }
}
