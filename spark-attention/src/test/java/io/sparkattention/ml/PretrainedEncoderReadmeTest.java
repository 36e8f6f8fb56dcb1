package io.sparkattention.ml;

import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.LogisticRegression;
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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's "Pretrained encoders" pipeline, as written there, on a few labelled sentences. */
class PretrainedEncoderReadmeTest {

    private static final String[] WEATHER = {"It rained all afternoon in Bath.", "The wind blew cold over the downs.",
        "A storm broke over the village at night.", "The morning was bright and warm.",
        "Snow lay deep on the road to Highbury.", "Fog hid the lane until noon."};
    private static final String[] DANCING = {"They danced two dances at the ball.", "The assembly rooms were full of "
        + "dancers.", "He asked her for the next dance.", "The musicians struck up a reel.",
        "She stood up with Mr. Elton for the cotillion.", "The ball went on until two in the morning."};

    private final SparkSession spark = SparkTestSession.get();

    private Dataset<Row> sentences() {
        StructType schema = new StructType().add("text", DataTypes.StringType).add("label", DataTypes.DoubleType);
        List<Row> rows = new ArrayList<>();
        for (String s : WEATHER) {
            rows.add(RowFactory.create(s, 0.0));
        }
        for (String s : DANCING) {
            rows.add(RowFactory.create(s, 1.0));
        }
        return spark.createDataFrame(rows, schema);
    }

    @Test
    @DisplayName("tokenizer → all-MiniLM-L6-v2 → LogisticRegression fits, saves, loads and predicts")
    void readmePipeline(@TempDir Path dir) throws IOException {
        Dataset<Row> labelled = sentences();
        Dataset<Row> corpus = sentences();
        String path = dir.resolve("minilm-lr").toString();

        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
            HuggingFaceTokenizer.pretrained("all-minilm-l6-v2")        // text -> input_ids: array<int>
                .setInputCol("text").setMaxLength(256),
            BertEncoderModel.pretrained("all-minilm-l6-v2")            // input_ids -> features: vector (384)
                .setOutputCol("features"),
            new LogisticRegression().setLabelCol("label")});
        PipelineModel model = pipeline.fit(labelled);                  // columns text, label
        model.write().overwrite().save(path);                          // carries tokenizer.json and the weights
        Dataset<Row> predicted = PipelineModel.load(path).transform(corpus);

        List<Row> rows = predicted.select("label", "prediction", "features").collectAsList();
        assertEquals(12, rows.size());
        long right = rows.stream().filter(r -> r.getDouble(0) == r.getDouble(1)).count();
        assertTrue(right == 12, right + " of 12 training sentences predicted right");
    }
}
