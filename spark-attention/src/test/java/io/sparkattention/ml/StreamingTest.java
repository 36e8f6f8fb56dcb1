package io.sparkattention.ml;

import io.sparkattention.ml.feature.RotaryPositionalEncoding;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RandomTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every stage on a streaming DataFrame (a JSON file source into a memory sink) gives the batch result. */
class StreamingTest {

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    @Test
    @DisplayName("sinusoidal → rotary → multi-head attention model → SDPA on a stream equals the same on a batch")
    void stagesRunOnAStream() throws Exception {
        Path input = Files.createDirectories(dir.resolve("in"));
        RandomTensors rnd = new RandomTensors(21);
        for (int file = 0; file < 2; file++) {
            StringBuilder lines = new StringBuilder();
            for (int r = 0; r < 3; r++) {
                int id = file * 3 + r, L = rnd.pick(1, 4, 7);
                lines.append("{\"id\":").append(id).append(",\"query\":").append(json(rnd.normal(L * 16, 1), L, 16))
                    .append(",\"key_length\":").append(rnd.between(0, L)).append("}\n");
            }
            Files.writeString(input.resolve("part-" + file + ".json"), lines, StandardCharsets.UTF_8);
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
            .add("query", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType)))
            .add("key_length", DataTypes.IntegerType);
        PipelineModel stages = new PipelineModel("streaming", new Transformer[] {
            new SinusoidalPositionalEncoding().setInputCol("query").setOutputCol("x"),
            new RotaryPositionalEncoding().setQueryCol("x").setQueryOutputCol("x_rope").setNumHeads(4),
            MultiHeadAttentionTest.fixtureModel("mha_self_basic", 4).setQueryCol("x_rope").setOutputCol("mha")
                .setKeyLengthCol("key_length").setWeightsCol("mha_weights").setStrategy("batch"),
            new ScaledDotProductAttention().setQueryCol("mha").setOutputCol("sdpa").setCausal(true)
                .setStrategy("batch")});

        Dataset<Row> stream = spark.readStream().schema(schema).json(input.toString());
        assertTrue(stream.isStreaming());
        StreamingQuery query = stages.transform(stream).writeStream().format("memory").queryName("attention_stream")
            .outputMode("append").option("checkpointLocation", dir.resolve("checkpoint").toString()).start();
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        List<Row> streamed = spark.table("attention_stream").orderBy("id").collectAsList();
        List<Row> batch = stages.transform(spark.read().schema(schema).json(input.toString())).orderBy("id")
            .collectAsList();
        assertEquals(6, streamed.size());
        assertEquals(batch, streamed);
    }

    private static String json(float[] values, int rows, int cols) {
        List<String> out = new ArrayList<>();
        for (float[] row : Matrices.floats(values, rows, cols)) {
            List<String> v = new ArrayList<>();
            for (float x : row) {
                v.add(Float.toString(x));
            }
            out.add("[" + String.join(",", v) + "]");
        }
        return "[" + String.join(",", out) + "]";
    }
}
